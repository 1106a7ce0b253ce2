import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComposeService } from '../../api.js';
import { Field } from '../../components/field.js';
import { verbOf, type ServiceAction } from './services-table.js';

/** Stop and restart confirm with the service named; a core service needs its key typed out. */
export function ConfirmDialog({ service, action, onConfirm, onClose }: { service: ComposeService; action: ServiceAction; onConfirm: (confirm: true | string) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const ok = !service.core || typed === service.service;
  const verb = verbOf(action);
  return (
    <dialog ref={ref} aria-labelledby="confirm-h" onCancel={(e) => (e.preventDefault(), onClose())}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (ok) onConfirm(service.core ? typed : true);
        }}
      >
        <h2 id="confirm-h">
          {verb} service {service.service}?
        </h2>
        {service.core ? (
          <>
            <p>
              <strong>{service.service}</strong> is a core data or ingress service: other parts stop working while it is down.
            </p>
            <Field id="confirm-key" label={<>Type {service.service} to confirm</>}>
              <input id="confirm-key" autoComplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
            </Field>
          </>
        ) : (
          <p>
            This will {action} the container of <strong>{service.service}</strong>.
          </p>
        )}
        <div class="row">
          <button type="submit" disabled={!ok}>
            {verb} {service.service}
          </button>
          <button type="button" class="quiet" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
