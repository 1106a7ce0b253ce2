import type { PluginSummary } from '../../../api.js';
import { Status } from '../../../components/status.js';

/** New manifests dropped into the plugin folders show up within this interval, without a reload. */
export const LIST_REFRESH_MS = 2_000;

export function stateOk(state: string): boolean | null {
  if (state === 'active') return true;
  if (['rejected', 'failed', 'needs-config', 'retrying'].includes(state)) return false;
  return null;
}

export function HealthBadge({ p }: { p: PluginSummary }) {
  if (!p.health) return <Status ok={null}>not checked</Status>;
  return <Status ok={p.health.ok}>{p.health.ok ? 'healthy' : 'unhealthy'}</Status>;
}

export function Diagnostics({ list }: { list: PluginSummary['diagnostics'] }) {
  if (!list.length) return null;
  return (
    <ul class="diagnostics">
      {list.map((d, i) => (
        <li key={i}>
          <Status ok={d.severity === 'error' ? false : null}>{d.severity}</Status> <span class="mono">{d.code}</span>
          {d.path ? <span class="mono"> at {d.path}</span> : null}: {d.message}
        </li>
      ))}
    </ul>
  );
}
