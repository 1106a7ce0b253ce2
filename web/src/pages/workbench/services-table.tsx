import type { ApiResponse, ComposeService } from '../../api.js';
import { Status } from '../../components/status.js';
import { Table, type Column } from '../../components/table.js';

export type ServiceAction = ApiResponse<'/api/docker/services/{service}/{action}', 'post'>['action'];

const COLUMNS: Column<ComposeService>[] = [
  {
    header: 'Service',
    rowHeader: true,
    class: 'mono',
    cell: (s) => (
      <>
        {s.service} {s.core && <span class="badge warn">core</span>}
      </>
    ),
  },
  { header: 'State', cell: (s) => <Status ok={s.state === 'running' ? true : s.containers.length === 0 || s.optional ? null : false}>{s.state}</Status> },
  { header: 'Container', class: 'hint', cell: (s) => (s.containers[0] ? `${s.containers[0].name} · ${s.containers[0].status}` : '—') },
];

/** The compose services with start, stop, restart (asked first by the caller) and logs. */
export function ServicesTable({ services, busy, onAction, onLogs }: { services: readonly ComposeService[]; busy: boolean; onAction: (s: ComposeService, action: ServiceAction) => void; onLogs: (s: ComposeService) => void }) {
  const buttons = (s: ComposeService) => {
    const absent = s.containers.length === 0;
    return (
      <>
        {(['start', 'stop', 'restart'] as const).map((action) => (
          <button key={action} type="button" class="quiet" disabled={absent || busy} onClick={() => onAction(s, action)} aria-label={`${verbOf(action)} ${s.service}`}>
            {verbOf(action)}
          </button>
        ))}
        <button type="button" class="quiet" disabled={absent} onClick={() => onLogs(s)} aria-label={`Logs of ${s.service}`}>
          Logs
        </button>
      </>
    );
  };
  return <Table testId="services" rows={services} columns={COLUMNS} rowKey={(s) => s.service} actions={{ label: (s) => `Actions for ${s.service}`, cell: buttons }} />;
}

export const verbOf = (action: ServiceAction) => `${action[0]!.toUpperCase()}${action.slice(1)}`;
