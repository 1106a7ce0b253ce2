import { useRef, useState } from 'preact/hooks';
import { Field } from '../../../components/field.js';
import { copyText } from './copy-text.js';

/** The settings as an env file (secrets masked), with a copy button. */
export function EnvSnippet({ snippet }: { snippet: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string>();
  return (
    <Field id="env-snippet" label={<>Env snippet <span class="hint">(secrets masked)</span></>}>
      <textarea id="env-snippet" ref={area} class="mono" rows={Math.min(16, snippet.split('\n').length + 1)} readOnly value={snippet} />
      <div class="row">
        <button type="button" class="quiet" onClick={async () => setCopied((await copyText(snippet, area.current)) ? 'Copied.' : 'Selected: press Ctrl+C to copy.')}>
          Copy snippet
        </button>
        <span role="status" class="hint">
          {copied}
        </span>
      </div>
    </Field>
  );
}
