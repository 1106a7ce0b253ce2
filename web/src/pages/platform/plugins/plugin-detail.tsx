import type { PluginSummary } from '../../../api.js';
import { WhenLoaded } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { Status } from '../../../components/status.js';
import { when } from '../../../format.js';
import { useGet } from '../../../hooks/use-api.js';
import { href } from '../../../router.js';
import { Diagnostics, errorBesideState, HealthBadge, isolationLabel, LIST_REFRESH_MS, stateLabel, stateOk } from './plugin-state.js';
import { PackageVersions } from './package-versions.js';
import { SettingsForm } from './settings-form.js';

function Facts({ plugin }: { plugin: PluginSummary }) {
  return (
    <dl class="kv">
      <dt>State</dt>
      <dd>
        <Status ok={stateOk(plugin.state)}>{stateLabel(plugin)}</Status>
      </dd>
      <dt>Generation</dt>
      <dd data-testid="generation">{plugin.generation ?? '—'}</dd>
      <dt>Health</dt>
      <dd>
        <HealthBadge p={plugin} /> {plugin.health?.detail ?? ''} {plugin.health ? <span class="hint">checked {when(plugin.health.checkedAt)}</span> : null}
      </dd>
      <dt>Runs in</dt>
      <dd data-testid="isolation">{isolationLabel(plugin)}</dd>
      {plugin.isolation?.last_failure && (
        <>
          <dt>Last failure</dt>
          <dd data-testid="last-failure">{plugin.isolation.last_failure}</dd>
        </>
      )}
      <dt>Version</dt>
      <dd>{plugin.version ?? '—'}</dd>
      <dt>Manifest</dt>
      <dd class="mono">{plugin.manifest_path ?? 'built in'}</dd>
      {errorBesideState(plugin) && (
        <>
          <dt>Last error</dt>
          <dd>{errorBesideState(plugin)}</dd>
        </>
      )}
    </dl>
  );
}

/** A plugin's page: its state, its package's versions (when it is one), generations and diagnostics, and its settings form. */
export function PluginDetail({ id }: { id: string }) {
  const p = useGet('/plugins/{id}', { path: { id } }, LIST_REFRESH_MS);
  return (
    <>
      <p>
        <a href={href('plugins')}>← All plugins</a>
      </p>
      <Section title={`Plugin ${id}`} id="plugin">
        <WhenLoaded loaded={p}>
          {(plugin) => (
            <>
              {plugin.description && <p>{plugin.description}</p>}
              <Facts plugin={plugin} />
              <PackageVersions id={id} onChange={p.reload} />
              {plugin.generations.length > 0 && (
                <>
                  <h3>Generations</h3>
                  <ul>
                    {plugin.generations.map((g) => (
                      <li key={g.number}>
                        {g.number}: {g.state}, {g.leases} calls in flight, since {when(g.started_at)}
                      </li>
                    ))}
                  </ul>
                </>
              )}
              {plugin.diagnostics.length > 0 && (
                <>
                  <h3>Diagnostics</h3>
                  <Diagnostics list={plugin.diagnostics} />
                </>
              )}
            </>
          )}
        </WhenLoaded>
      </Section>
      <Section title="Settings" id="settings">
        <SettingsForm id={id} plugin={p.data} onSaved={p.reload} />
      </Section>
    </>
  );
}
