import { useState } from 'preact/hooks';
import { sb, unwrap, type ComposeService } from '../../api.js';
import { ActionOutcome, ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Status } from '../../components/status.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';
import { ServiceConfirmDialog } from './confirm-dialog.js';
import { ServicesTable, type ServiceAction } from './services-table.js';

/** The container engine and the compose services: start at once, stop and restart after a confirmation, logs. */
export function Containers() {
  const status = useGet('/api/docker/status', {}, 30_000);
  const services = useGet('/api/docker/services', {}, 30_000);
  const [pending, setPending] = useState<{ service: ComposeService; action: ServiceAction }>();
  const [logs, setLogs] = useState<{ service: string; text: string }>();
  const action = useAction();
  const act = (service: ComposeService, what: ServiceAction, confirm?: true | string) => {
    setPending(undefined);
    void action.run(
      async () => {
        const path = { service: service.service, action: what };
        const r = await unwrap(sb.POST('/api/docker/services/{service}/{action}', { params: { path }, ...(confirm !== undefined ? { body: { confirm } } : {}) }));
        services.reload();
        status.reload();
        return `${service.service}: ${what} done, now ${r.state}.`;
      },
      { label: service.service, prefixError: true },
    );
  };
  const showLogs = (service: ComposeService) =>
    action.run(
      async () => {
        const r = await unwrap(sb.GET('/api/docker/services/{service}/logs', { params: { path: { service: service.service }, query: { tail: 200 } } }));
        setLogs({ service: service.service, text: r.logs });
      },
      { label: service.service, prefixError: true },
    );
  const engine = status.data;
  return (
    <Section title="Containers" id="containers">
      <ErrorNote error={status.error} />
      {engine && engine.running && (
        <p>
          Engine <Status ok={true}>running</Status>{' '}
          <span class="hint">
            {[engine.runtime, engine.version].filter(Boolean).join(' ')} · project {engine.project_name} · {engine.containers_count} managed container
            {engine.containers_count === 1 ? '' : 's'}
            {engine.detail ? ` · ${engine.detail}` : ''}
          </span>
        </p>
      )}
      {/* Most machines have no container engine: a neutral state naming the setting, not an error. */}
      {engine && !engine.running && (
        <p class="note" data-testid="no-engine">
          <Status ok={null}>no container engine</Status> The controls need a local Docker or Podman engine: set <code>DOCKER_HOST</code> to its socket (for example{' '}
          <code>unix:///run/podman/podman.sock</code>; unset means <code>unix:///var/run/docker.sock</code>).{' '}
          {engine.detail ? <span class="hint">{engine.detail}</span> : null}
        </p>
      )}
      {!(engine && !engine.running && services.errorCode === 'engine_unreachable') && <ErrorNote error={services.error} />}
      <ActionOutcome action={action} />
      {services.data && <ServicesTable services={services.data.services} busy={action.busy !== null} onAction={(s, what) => (what === 'start' ? act(s, what) : setPending({ service: s, action: what }))} onLogs={showLogs} />}
      {pending && <ServiceConfirmDialog service={pending.service} action={pending.action} onClose={() => setPending(undefined)} onConfirm={(confirm) => act(pending.service, pending.action, confirm)} />}
      {logs && (
        <>
          <h3>
            Logs of {logs.service}{' '}
            <button type="button" class="quiet" onClick={() => setLogs(undefined)}>
              Close
            </button>
          </h3>
          <pre class="logs" tabIndex={0} aria-label={`Last log lines of ${logs.service}`} data-testid="logs">
            {logs.text || '(no output)'}
          </pre>
        </>
      )}
    </Section>
  );
}
