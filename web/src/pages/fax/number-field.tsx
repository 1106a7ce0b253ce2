import { Field } from '../../components/field.js';
import { PHONE_RULE, normalizePhone, splitNumbers } from './phone.js';

/** The destination numbers (one, or several separated by commas), each checked by the API's rule once the field was left. */
export function NumberField({ value, touched, onInput, onBlur }: { value: string; touched: boolean; onInput: (value: string) => void; onBlur: () => void }) {
  const error = touched && value !== '' && !splitNumbers(value).every((n) => normalizePhone(n)) ? PHONE_RULE : undefined;
  return (
    <Field id="fax-to" label={<>Destination number <span class="hint">{PHONE_RULE} Several: separate them with commas.</span></>}>
      <input
        id="fax-to"
        name="to"
        type="tel"
        autoComplete="off"
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'fax-to-error' : undefined}
        onInput={(e) => onInput(e.currentTarget.value)}
        onBlur={onBlur}
      />
      {error && (
        <span id="fax-to-error" class="error-inline">
          {error}
        </span>
      )}
    </Field>
  );
}
