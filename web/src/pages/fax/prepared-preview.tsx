import type { PreparedFax } from '../../api.js';
import { kb, when } from '../../format.js';

const pages = (n: number) => `${n} ${n === 1 ? 'page' : 'pages'}`;

/** The checked document before it is sent: its pages, the masked number, when the approval expires. */
export function PreparedPreview({ prepared, busy, onSend, onChange }: { prepared: PreparedFax; busy: boolean; onSend: () => void; onChange: () => void }) {
  return (
    <div class="preview" data-testid="preview" aria-live="polite">
      <p>
        <strong>{pages(prepared.pages)}</strong> to <span class="mono">{prepared.to}</span> ({kb(prepared.size_bytes)}). This preview expires {when(prepared.expires_at)}.
      </p>
      <div class="row">
        <button type="button" onClick={onSend} disabled={busy}>
          Send {pages(prepared.pages)}
        </button>
        <button type="button" class="quiet" onClick={onChange}>
          Change
        </button>
      </div>
    </div>
  );
}
