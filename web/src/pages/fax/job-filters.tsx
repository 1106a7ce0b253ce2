import { useState } from 'preact/hooks';
import { Field, Options } from '../../components/field.js';

export interface Filters {
  status: string;
  backend: string;
  since: string;
}

/** The job list's filters, applied on submit (they go into the page's address). */
export function JobFilters({ initial, statuses, onApply }: { initial: Filters; statuses: readonly string[]; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(initial);
  return (
    <form
      class="row"
      onSubmit={(e) => {
        e.preventDefault();
        onApply({ ...draft, backend: draft.backend.trim() });
      }}
    >
      <Field id="f-status" label="Status">
        <select id="f-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}>
          <option value="">any</option>
          <Options values={statuses} />
        </select>
      </Field>
      <Field id="f-backend" label="Backend">
        <input id="f-backend" value={draft.backend} onInput={(e) => setDraft({ ...draft, backend: e.currentTarget.value })} />
      </Field>
      <Field id="f-since" label="Created since">
        <input id="f-since" type="datetime-local" value={draft.since} onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })} />
      </Field>
      <div class="field">
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}
