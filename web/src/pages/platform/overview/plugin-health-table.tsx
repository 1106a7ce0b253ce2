import type { ApiResponse } from '../../../api.js';
import { Status } from '../../../components/status.js';
import { Table, type Column } from '../../../components/table.js';
import { errorBesideState, stateLabel } from '../plugins/plugin-state.js';

type PluginHealth = ApiResponse<'/admin/health-status', 'get'>['plugins'][number];

const COLUMNS: Column<PluginHealth>[] = [
  { header: 'Plugin', class: 'mono', cell: (p) => p.id },
  { header: 'State', cell: (p) => stateLabel(p) },
  { header: 'Generation', cell: (p) => p.generation ?? '—' },
  { header: 'Health', cell: (p) => <Status ok={p.ok}>{p.ok === null ? 'n/a' : p.ok ? 'healthy' : 'unhealthy'}</Status> },
  { header: 'Detail', class: 'hint', cell: (p) => errorBesideState(p) ?? p.detail ?? '' },
];

export function PluginHealthTable({ plugins }: { plugins: readonly PluginHealth[] }) {
  return <Table rows={plugins} columns={COLUMNS} rowKey={(p) => p.id} />;
}
