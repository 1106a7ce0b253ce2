import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi } from '../hooks.js';
import { href } from '../router.js';
import type { Route } from '../router.js';
import type { paths } from '../../../clients/typescript/src/schema.js';

interface Diagnostic {
  severity: 'error' | 'warning';
  code: string;
  path: string;
  message: string;
}
interface Plugin {
  id: string;
  name: string | null;
  version: string | null;
  description: string | null;
  kinds: string[];
  state: string;
  enabled: boolean;
  generation: number | null;
  generations: { number: number; state: string; leases: number; started_at: string }[];
  health: { ok: boolean; detail?: string; checkedAt: string } | null;
  last_error: string | null;
  diagnostics: Diagnostic[];
  manifest_path: string | null;
  declarative: boolean;
  maturity: string | null;
}
/** GET /plugins/{id}/config as the generated client types it, so its fields are declared once (in the route's schema). */
type PluginConfig = paths['/plugins/{id}/config']['get']['responses'][200]['content']['application/json'];
type Field = PluginConfig['fields'][number];
interface RegistryEntry {
  id: string;
  name: string;
  description: string;
  version: string;
  kinds: string[];
  builtin: boolean;
  installed: boolean;
  state: string | null;
}

/** New manifests dropped into the plugin folders show up within this interval, without a reload. */
const LIST_REFRESH_MS = 2_000;

function stateOk(state: string): boolean | null {
  if (state === 'active') return true;
  if (['rejected', 'failed', 'needs-config', 'retrying'].includes(state)) return false;
  return null;
}

function HealthBadge({ p }: { p: Plugin }) {
  if (!p.health) return <Status ok={null}>not checked</Status>;
  return <Status ok={p.health.ok}>{p.health.ok ? 'healthy' : 'unhealthy'}</Status>;
}

function Diagnostics({ list }: { list: Diagnostic[] }) {
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

function PluginList({ plugins }: { plugins: Plugin[] }) {
  return (
    <table data-testid="plugin-list">
      <thead>
        <tr>
          <th scope="col">Plugin</th>
          <th scope="col">Kinds</th>
          <th scope="col">State</th>
          <th scope="col">Generation</th>
          <th scope="col">Health</th>
          <th scope="col">Diagnostics</th>
        </tr>
      </thead>
      <tbody>
        {plugins.map((p) => (
          <tr key={p.id} data-plugin={p.id}>
            <td>
              <a href={href(`plugins/${encodeURIComponent(p.id)}`)} class="mono">
                {p.id}
              </a>
              <div class="hint">
                {p.name ?? ''} {p.version ? `v${p.version}` : ''}
              </div>
            </td>
            <td>{p.kinds.join(', ') || '—'}</td>
            <td>
              <Status ok={stateOk(p.state)}>{p.state}</Status>
              {!p.enabled && <span class="hint"> (disabled)</span>}
            </td>
            <td data-testid={`generation-${p.id}`}>{p.generation ?? '—'}</td>
            <td>
              <HealthBadge p={p} />
            </td>
            <td>
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
              {p.last_error && <div class="hint">{p.last_error}</div>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Registry({ onChange }: { onChange: () => void }) {
  const reg = useApi<{ plugins: RegistryEntry[]; problem?: string }>('/plugin-registry', LIST_REFRESH_MS * 5);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const act = async (e: RegistryEntry) => {
    setBusy(e.id);
    setError(undefined);
    setDone(undefined);
    try {
      if (e.installed) {
        await api(`/plugin-registry/${encodeURIComponent(e.id)}`, { method: 'DELETE' });
        setDone(`${e.id} was uninstalled.`);
      } else {
        const p = await api<Plugin>(`/plugin-registry/${encodeURIComponent(e.id)}/install`, { method: 'POST' });
        setDone(`${e.id} was installed (state: ${p.state}).`);
      }
      reg.reload();
      onChange();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <Section title="Registry" id="registry">
      <ErrorNote error={reg.error ?? error} />
      {reg.data?.problem && <p class="error">{reg.data.problem}</p>}
      <p role="status" class="note">
        {done ?? ''}
      </p>
      {reg.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Entry</th>
              <th scope="col">Kinds</th>
              <th scope="col">Status</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {reg.data.plugins.map((e) => (
              <tr key={e.id}>
                <td>
                  <span class="mono">{e.id}</span> <span class="hint">v{e.version}</span>
                  <div class="hint">{e.description}</div>
                </td>
                <td>{e.kinds.join(', ')}</td>
                <td>{e.builtin ? 'built in' : e.installed ? `installed (${e.state ?? '—'})` : 'not installed'}</td>
                <td>
                  {e.builtin ? (
                    <span class="hint">—</span>
                  ) : (
                    <button type="button" class={e.installed ? 'quiet' : ''} disabled={busy !== undefined} onClick={() => void act(e)} aria-label={`${e.installed ? 'Uninstall' : 'Install'} ${e.id}`}>
                      {busy === e.id ? 'Working…' : e.installed ? 'Uninstall' : 'Install'}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

/** The form's text for a value: what an input shows. */
function asText(f: Field, v: unknown): string {
  if (v === null || v === undefined) return '';
  if (f.type === 'json') return JSON.stringify(v);
  return String(v);
}

interface Draft {
  enabled: boolean;
  values: Record<string, string | boolean>;
  /** Secrets the operator asked to clear. */
  clear: Record<string, boolean>;
}

function draftOf(cfg: PluginConfig): Draft {
  const values: Record<string, string | boolean> = {};
  for (const f of cfg.fields) {
    if (f.secret) values[f.name] = '';
    else if (f.type === 'boolean') values[f.name] = cfg.settings[f.name] === true;
    else values[f.name] = asText(f, cfg.settings[f.name]);
  }
  return { enabled: cfg.enabled, values, clear: {} };
}

/** Only what the operator changed: untouched fields keep their source (default, env, store). */
function changes(cfg: PluginConfig, draft: Draft): { body: { enabled?: boolean; settings: Record<string, unknown> }; problem?: string } {
  const initial = draftOf(cfg);
  const settings: Record<string, unknown> = {};
  for (const f of cfg.fields) {
    if (f.env_only) continue;
    const v = draft.values[f.name];
    if (f.secret) {
      if (draft.clear[f.name]) settings[f.name] = null;
      else if (typeof v === 'string' && v !== '') settings[f.name] = v;
      continue;
    }
    if (v === initial.values[f.name]) continue;
    if (f.type === 'boolean') settings[f.name] = v === true;
    else if (v === '') settings[f.name] = null;
    else if (f.type === 'number' || f.type === 'integer') {
      const n = Number(v);
      if (!Number.isFinite(n)) return { body: { settings }, problem: `${f.name}: not a number` };
      settings[f.name] = n;
    } else if (f.type === 'json') {
      try {
        settings[f.name] = JSON.parse(String(v));
      } catch {
        return { body: { settings }, problem: `${f.name}: not valid JSON` };
      }
    } else settings[f.name] = v;
  }
  return { body: { ...(draft.enabled !== cfg.enabled ? { enabled: draft.enabled } : {}), settings } };
}

function FieldInput({ f, cfg, draft, set }: { f: Field; cfg: PluginConfig; draft: Draft; set: (d: Draft) => void }) {
  const id = `setting-${f.name}`;
  const hintId = `${id}-hint`;
  const value = draft.values[f.name];
  const fromEnv = cfg.sources[f.name] === 'env';
  const update = (v: string | boolean) => set({ ...draft, values: { ...draft.values, [f.name]: v } });
  const hint = [
    f.description,
    f.secret ? (cfg.secrets[f.name]?.set ? 'Secret: set. Leave empty to keep it.' : 'Secret: not set.') : undefined,
    f.env_only ? `Only the environment sets it${f.env ? ` (${f.env})` : ''}.` : undefined,
    fromEnv ? `Overridden by the environment variable ${f.env ?? ''}: a stored value is kept but the environment wins.` : undefined,
    !f.secret && f.default !== undefined ? `Default: ${JSON.stringify(f.default)}` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const common = { id, disabled: f.env_only, 'aria-describedby': hint ? hintId : undefined };
  let input;
  if (f.type === 'boolean')
    input = <input type="checkbox" {...common} checked={value === true} onChange={(e) => update(e.currentTarget.checked)} />;
  else if (f.type === 'enum')
    input = (
      <select {...common} value={String(value)} onChange={(e) => update(e.currentTarget.value)}>
        {!f.required && <option value="">(unset)</option>}
        {f.options!.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  else if (f.type === 'json') input = <textarea {...common} rows={3} value={String(value)} onInput={(e) => update(e.currentTarget.value)} />;
  else
    input = (
      <input
        {...common}
        type={(f.secret ? 'password' : f.type === 'string' ? 'text' : 'number') as 'text'}
        autoComplete={f.secret ? 'new-password' : 'off'}
        placeholder={f.secret && cfg.secrets[f.name]?.set ? 'set' : undefined}
        value={String(value)}
        onInput={(e) => update(e.currentTarget.value)}
      />
    );
  return (
    <div class="field" data-field={f.name}>
      <label for={id}>
        {f.name}
        {f.required && <span aria-hidden="true"> *</span>}{' '}
        {f.secret && <Status ok={null}>{cfg.secrets[f.name]?.set ? 'set' : 'not set'}</Status>}{' '}
        {fromEnv && <Status ok={null}>env: {f.env}</Status>}
      </label>
      {input}
      {f.secret && cfg.secrets[f.name]?.set && !f.env_only && (
        <label class="hint">
          <input type="checkbox" checked={!!draft.clear[f.name]} onChange={(e) => set({ ...draft, clear: { ...draft.clear, [f.name]: e.currentTarget.checked } })} /> clear this secret
        </label>
      )}
      {hint && (
        <span id={hintId} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

function SettingsForm({ id, plugin, onSaved }: { id: string; plugin: Plugin | undefined; onSaved: () => void }) {
  const cfg = useApi<PluginConfig>(`/plugins/${encodeURIComponent(id)}/config`);
  const [draft, setDraft] = useState<Draft>();
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    // A fresh view (after a save) resets the form; a failed request leaves the typed values.
    if (cfg.data) setDraft(draftOf(cfg.data));
  }, [cfg.data]);
  if (cfg.error) return <ErrorNote error={cfg.error} />;
  if (!cfg.data || !draft) return <p class="note">Loading…</p>;
  const data = cfg.data;
  const send = async (kind: 'test' | 'save') => {
    const { body, problem } = changes(data, draft);
    setError(problem);
    setResult(undefined);
    if (problem) return;
    setBusy(true);
    try {
      if (kind === 'test') {
        const r = await api<{ ok: boolean; checked: string; detail?: string; state: string }>(`/plugins/${encodeURIComponent(id)}/config/test`, { method: 'POST', body });
        setResult(`Test ${r.ok ? 'passed' : 'failed'} (${r.checked === 'connection' ? 'the provider was contacted' : 'settings checked'}; would be ${r.state})${r.detail ? `: ${r.detail}` : ''}`);
      } else {
        const r = await api<{ plugin: Plugin | null; env_overridden: string[] }>(`/plugins/${encodeURIComponent(id)}/config`, { method: 'PUT', body });
        const env = r.env_overridden.length ? ` Still overridden by the environment: ${r.env_overridden.join(', ')}.` : '';
        setResult(`Saved. ${id} is ${r.plugin?.state ?? 'unknown'} on generation ${r.plugin?.generation ?? '—'}.${env}`);
        cfg.reload();
        onSaved();
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="settings"
      onSubmit={(e) => {
        e.preventDefault();
        void send('save');
      }}
    >
      <div class="field">
        <label>
          <input type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })} /> Enabled
        </label>
      </div>
      {data.fields.length === 0 && <p class="note">This plugin has no settings.</p>}
      {data.fields.map((f) => (
        <FieldInput key={f.name} f={f} cfg={data} draft={draft} set={setDraft} />
      ))}
      <ErrorNote error={error} />
      <p role="status" data-testid="settings-result">
        {result ?? ''}
      </p>
      <div class="row">
        <button type="button" class="quiet" disabled={busy} onClick={() => void send('test')}>
          Test settings
        </button>
        <button type="submit" disabled={busy}>
          Save
        </button>
        {plugin && <span class="hint">Serving on generation {plugin.generation ?? '—'}</span>}
      </div>
    </form>
  );
}

function PluginDetail({ id }: { id: string }) {
  const p = useApi<Plugin>(`/plugins/${encodeURIComponent(id)}`, LIST_REFRESH_MS);
  const plugin = p.data;
  return (
    <>
      <p>
        <a href={href('plugins')}>← All plugins</a>
      </p>
      <Section title={`Plugin ${id}`} id="plugin">
        <ErrorNote error={p.error} />
        {plugin && (
          <>
            {plugin.description && <p>{plugin.description}</p>}
            <dl class="kv">
              <dt>State</dt>
              <dd>
                <Status ok={stateOk(plugin.state)}>{plugin.state}</Status>
              </dd>
              <dt>Generation</dt>
              <dd data-testid="generation">{plugin.generation ?? '—'}</dd>
              <dt>Health</dt>
              <dd>
                <HealthBadge p={plugin} /> {plugin.health?.detail ?? ''} {plugin.health ? <span class="hint">checked {when(plugin.health.checkedAt)}</span> : null}
              </dd>
              <dt>Version</dt>
              <dd>{plugin.version ?? '—'}</dd>
              <dt>Manifest</dt>
              <dd class="mono">{plugin.manifest_path ?? 'built in'}</dd>
              {plugin.last_error && (
                <>
                  <dt>Last error</dt>
                  <dd>{plugin.last_error}</dd>
                </>
              )}
            </dl>
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
      </Section>
      <Section title="Settings" id="settings">
        <SettingsForm id={id} plugin={plugin} onSaved={p.reload} />
      </Section>
    </>
  );
}

export function PluginsPage({ route }: { route: Route }) {
  const id = route.parts[1];
  const list = useApi<{ plugins: Plugin[] }>(id ? null : '/plugins', LIST_REFRESH_MS);
  if (id) return <PluginDetail id={id} />;
  return (
    <>
      <Section title="Installed plugins" id="installed">
        <p class="hint">Refreshed every {LIST_REFRESH_MS / 1000} s: a manifest dropped into a plugin folder appears here on its own. Open a plugin for its settings.</p>
        <ErrorNote error={list.error} />
        {list.data ? <PluginList plugins={list.data.plugins} /> : !list.error && <p class="note">Loading…</p>}
      </Section>
      <Registry onChange={list.reload} />
    </>
  );
}
