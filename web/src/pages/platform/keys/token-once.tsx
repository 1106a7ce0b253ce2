import { useEffect, useRef, useState } from 'preact/hooks';
import { setApiKey, type MintedApiKey } from '../../../api.js';
import { Field } from '../../../components/field.js';
import { copyText } from './copy-text.js';

/** A token shown once: read-only field, copy button, and "use it for this session". */
export function TokenOnce({ minted, onDone }: { minted: MintedApiKey; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();
  useEffect(() => field.current?.focus(), []);
  return (
    <div class="preview" role="region" aria-label="New token" data-testid="token-once">
      <p>
        <strong>The token of “{minted.name}”</strong> is shown only now: copy it and keep it somewhere safe.
      </p>
      <div class="row">
        <Field id="new-token" grow label="Token">
          <input id="new-token" ref={field} class="mono" readOnly value={minted.token} onFocus={(e) => e.currentTarget.select()} />
        </Field>
        <div class="field">
          <button type="button" onClick={async () => setCopied((await copyText(minted.token, field.current)) ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C to copy.')}>
            Copy
          </button>
        </div>
      </div>
      <p role="status" class="hint">
        {copied}
      </p>
      <div class="row">
        {minted.scopes.includes('admin') && (
          <button type="button" class="quiet" onClick={() => (setApiKey(minted.token), location.reload())}>
            Use this key for this session
          </button>
        )}
        <button type="button" class="quiet" onClick={onDone}>
          Done, hide the token
        </button>
      </div>
    </div>
  );
}
