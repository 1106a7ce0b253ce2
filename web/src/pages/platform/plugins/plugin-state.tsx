import type { PluginSummary } from '../../../api.js';
import { Status } from '../../../components/status.js';

/** New manifests dropped into the plugin folders show up within this interval, without a reload. */
export const LIST_REFRESH_MS = 2_000;

/** Waiting for settings is a normal state of an optional plugin, not a fault: neutral. */
export function stateOk(state: string): boolean | null {
  if (state === 'active') return true;
  if (['rejected', 'failed', 'retrying'].includes(state)) return false;
  return null;
}

/** A plugin's state as the operator reads it: a plugin waiting for settings names them ("needs settings: url"), as GET /plugins and `switchboard plugins list` do. */
export function stateLabel(p: { state: string; last_error: string | null }): string {
  if (p.state !== 'needs-config') return p.state;
  return p.last_error?.startsWith('needs settings') ? p.last_error : 'needs settings';
}

/** The last error, unless the state label already says it. */
export function errorBesideState(p: { state: string; last_error: string | null }): string | null {
  return p.last_error && stateLabel(p) !== p.last_error ? p.last_error : null;
}

/** Where a plugin's code runs ("process 4242", "worker", "in-process"), with its crash restarts. */
export function isolationLabel(p: Pick<PluginSummary, 'isolation'>): string {
  const i = p.isolation;
  if (!i) return '—';
  const where = i.pid !== null ? `${i.mode} ${i.pid}` : i.thread_id !== null ? `${i.mode} (thread ${i.thread_id})` : i.mode;
  return i.restarts ? `${where}, ${i.restarts} ${i.restarts === 1 ? 'restart' : 'restarts'}` : where;
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
