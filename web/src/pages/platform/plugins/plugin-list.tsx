import type { PluginSummary } from '../../../api.js';
import { Status } from '../../../components/status.js';
import { Table, type Column } from '../../../components/table.js';
import { href } from '../../../router.js';
import { Diagnostics, errorBesideState, HealthBadge, isolationLabel, stateLabel, stateOk } from './plugin-state.js';

const COLUMNS: Column<PluginSummary>[] = [
  {
    header: 'Plugin',
    cell: (p) => (
      <>
        <a href={href(`plugins/${encodeURIComponent(p.id)}`)} class="mono">
          {p.id}
        </a>
        <div class="hint">
          {p.name ?? ''} {p.version ? `v${p.version}` : ''}
        </div>
      </>
    ),
  },
  { header: 'Kinds', cell: (p) => p.kinds.join(', ') || '—' },
  {
    header: 'State',
    cell: (p) => (
      <>
        <Status ok={stateOk(p.state)}>{stateLabel(p)}</Status>
        {!p.enabled && <span class="hint"> (disabled)</span>}
      </>
    ),
  },
  { header: 'Generation', cell: (p) => <span data-testid={`generation-${p.id}`}>{p.generation ?? '—'}</span> },
  { header: 'Health', cell: (p) => <HealthBadge p={p} /> },
  { header: 'Runs in', cell: (p) => <span data-testid={`isolation-${p.id}`}>{isolationLabel(p)}</span> },
  {
    header: 'Diagnostics',
    cell: (p) => (
      <>
        {p.diagnostics.length ? (
          <details>
            <summary>
              {p.diagnostics.length} {p.diagnostics.length === 1 ? 'diagnostic' : 'diagnostics'}
            </summary>
            <Diagnostics list={p.diagnostics} />
          </details>
        ) : (
          <span class="hint">none</span>
        )}
        {errorBesideState(p) && <div class="hint">{errorBesideState(p)}</div>}
      </>
    ),
  },
];

/** Every plugin found, rejected ones too, each linked to its page. */
export function PluginList({ plugins }: { plugins: readonly PluginSummary[] }) {
  return <Table testId="plugin-list" rows={plugins} columns={COLUMNS} rowKey={(p) => p.id} rowAttributes={(p) => ({ 'data-plugin': p.id })} />;
}
