import { useState } from 'preact/hooks';
import type { ComposeService } from '../../api.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { Field } from '../../components/field.js';
import { verbOf, type ServiceAction } from './services-table.js';

/** Stop and restart confirm with the service named; a core service needs its key typed out. */
export function ServiceConfirmDialog({ service, action, onConfirm, onClose }: { service: ComposeService; action: ServiceAction; onConfirm: (confirm: true | string) => void; onClose: () => void }) {
  const [typed, setTyped] = useState('');
  const verb = verbOf(action);
  return (
    <ConfirmDialog
      title={
        <>
          {verb} service {service.service}?
        </>
      }
      confirmLabel={
        <>
          {verb} {service.service}
        </>
      }
      ready={!service.core || typed === service.service}
      onConfirm={() => onConfirm(service.core ? typed : true)}
      onClose={onClose}
    >
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
    </ConfirmDialog>
  );
}
