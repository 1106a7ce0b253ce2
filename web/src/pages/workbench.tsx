import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, withQuery } from '../api.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi, type Loaded } from '../hooks.js';
import { RepoPicker, useConfig, useRepo } from '../repos.js';
import { FiringAlerts, type Alert } from '../firing-alerts.js';
import type { paths } from '../../../clients/typescript/src/schema.js';

// ---- judge backend -------------------------------------------------------------------------
interface Ready {
  ready: boolean;
  dependencies: { name: string; ready: boolean; detail?: string; hint?: string }[];
  missing: string[];
}

/** GET /api/judges as the generated client types it: the judge plugins system_one.provider can name. */
type JudgeList = paths['/api/judges']['get']['responses'][200]['content']['application/json'];
type JudgeEntry = JudgeList['judges'][number];

const judgeLabel = (j: JudgeEntry) => `${j.name} · ${j.hosting} · ${j.state}`;

function Judge() {
  const config = useConfig();
  const judges = useApi<JudgeList>('/api/judges');
  const ready = useApi<Ready>('/api/ready', 30_000, [503]);
  const current = config.data?.config['system_one.provider'];
  const source = config.data?.source['system_one.provider'];
  const [choice, setChoice] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  const list = judges.data?.judges ?? [];
  // A setting that names no judge plugin stays in the list as it is, so the select never hides it.
  const selected = list.find((j) => j.selected)?.id ?? judges.data?.provider ?? '';
  const options = list.some((j) => j.id === selected) || !selected ? list : [...list, { id: selected, label: `${selected} · no judge plugin has this name` }];
  const value = choice ?? selected;
  const chosen = list.find((j) => j.id === value);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    try {
      const res = await api<{ env_overridden: string[] }>('/api/config', { method: 'POST', body: { 'system_one.provider': value } });
      setNote(res.env_overridden.includes('system_one.provider') ? 'Stored, but the environment sets system_one.provider and still wins.' : `Judgments now go to ${chosen?.name ?? value}.`);
      setChoice(undefined);
      config.reload();
      judges.reload();
      ready.reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Judge backend" id="judge">
      <ErrorNote error={config.error} />
      {config.data && (
        <p data-testid="judge-provider">
          In force: <strong class="mono">{String(current)}</strong> <span class="hint">(from {source ?? 'default'})</span>
        </p>
      )}
      <ErrorNote error={judges.error} />
      <form class="row" onSubmit={save}>
        <div class="field">
          <label for="judge-provider">Backend</label>
          <select id="judge-provider" value={value} aria-describedby="judge-state" onChange={(e) => setChoice(e.currentTarget.value)}>
            {options.map((j) => (
              <option key={j.id} value={j.id}>
                {'label' in j ? j.label : judgeLabel(j)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <button type="submit" disabled={busy || !judges.data || value === selected}>
            Switch
          </button>
        </div>
      </form>
      {/* Any judge may be chosen (a plugin waiting for its settings included), but not without saying what follows. */}
      <p id="judge-state" class="hint">
        {chosen && chosen.state !== 'active' && `${chosen.name} is ${chosen.state}: every judgment fails as unavailable until it is active.`}
      </p>
      <ErrorNote error={error} />
      {note && <p role="status">{note}</p>}
      <ErrorNote error={ready.error} />
      {ready.data && (
        <ul class="plain">
          {ready.data.dependencies.map((d) => (
            <li key={d.name}>
              <Status ok={d.ready}>{d.ready ? 'ready' : 'not ready'}</Status> <span class="mono">{d.name}</span> {d.detail && <span class="hint">{d.detail}</span>}{' '}
              {d.hint && <span class="hint">— {d.hint}</span>}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

// ---- containers ----------------------------------------------------------------------------
interface EngineStatus {
  running: boolean;
  runtime: string | null;
  version: string | null;
  project_name: string;
  containers_count: number;
  detail?: string;
}
interface Service {
  service: string;
  state: string;
  core: boolean;
  optional: boolean;
  containers: { id: string; short_id: string; name: string; image: string; state: string; status: string }[];
}
type Action = 'start' | 'stop' | 'restart';

/** Stop and restart confirm with the service named; a core service needs its key typed out. */
function ConfirmDialog({ service, action, onConfirm, onClose }: { service: Service; action: Action; onConfirm: (confirm: true | string) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  const ok = !service.core || typed === service.service;
  const verb = action === 'stop' ? 'Stop' : 'Restart';
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
            <div class="field">
              <label for="confirm-key">Type {service.service} to confirm</label>
              <input id="confirm-key" autoComplete="off" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
            </div>
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

function Containers() {
  const status = useApi<EngineStatus>('/api/docker/status', 30_000);
  const services = useApi<{ project: string; services: Service[] }>('/api/docker/services', 30_000);
  const [pending, setPending] = useState<{ service: Service; action: Action }>();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  const [logs, setLogs] = useState<{ service: string; text: string }>();
  const act = async (service: Service, action: Action, confirm?: true | string) => {
    setPending(undefined);
    setBusy(service.service);
    setError(undefined);
    setDone(undefined);
    try {
      const r = await api<{ state: string }>(`/api/docker/services/${encodeURIComponent(service.service)}/${action}`, { method: 'POST', ...(confirm !== undefined ? { body: { confirm } } : {}) });
      setDone(`${service.service}: ${action} done, now ${r.state}.`);
      services.reload();
      status.reload();
    } catch (err) {
      setError(`${service.service}: ${errorText(err)}`);
    } finally {
      setBusy(undefined);
    }
  };
  const showLogs = async (service: Service) => {
    setError(undefined);
    try {
      const r = await api<{ logs: string }>(withQuery(`/api/docker/services/${encodeURIComponent(service.service)}/logs`, { tail: 200 }));
      setLogs({ service: service.service, text: r.logs });
    } catch (err) {
      setError(`${service.service}: ${errorText(err)}`);
    }
  };
  return (
    <Section title="Containers" id="containers">
      <ErrorNote error={status.error} />
      {status.data && (
        <p>
          Engine <Status ok={status.data.running}>{status.data.running ? 'running' : 'not answering'}</Status>{' '}
          <span class="hint">
            {[status.data.runtime, status.data.version].filter(Boolean).join(' ')} · project {status.data.project_name} · {status.data.containers_count} managed container
            {status.data.containers_count === 1 ? '' : 's'}
            {status.data.detail ? ` · ${status.data.detail}` : ''}
          </span>
        </p>
      )}
      <ErrorNote error={services.error} />
      <ErrorNote error={error} />
      {done && <p role="status">{done}</p>}
      {services.data && (
        <table data-testid="services">
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">State</th>
              <th scope="col">Container</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {services.data.services.map((s) => {
              const c = s.containers[0];
              const absent = s.containers.length === 0;
              return (
                <tr key={s.service}>
                  <th scope="row" class="mono">
                    {s.service} {s.core && <span class="badge warn">core</span>}
                  </th>
                  <td>
                    <Status ok={s.state === 'running' ? true : absent || s.optional ? null : false}>{s.state}</Status>
                  </td>
                  <td class="hint">{c ? `${c.name} · ${c.status}` : '—'}</td>
                  <td>
                    <div class="actions" role="group" aria-label={`Actions for ${s.service}`}>
                      <button type="button" class="quiet" disabled={absent || busy !== undefined} onClick={() => act(s, 'start')} aria-label={`Start ${s.service}`}>
                        Start
                      </button>
                      <button type="button" class="quiet" disabled={absent || busy !== undefined} onClick={() => setPending({ service: s, action: 'stop' })} aria-label={`Stop ${s.service}`}>
                        Stop
                      </button>
                      <button type="button" class="quiet" disabled={absent || busy !== undefined} onClick={() => setPending({ service: s, action: 'restart' })} aria-label={`Restart ${s.service}`}>
                        Restart
                      </button>
                      <button type="button" class="quiet" disabled={absent} onClick={() => showLogs(s)} aria-label={`Logs of ${s.service}`}>
                        Logs
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {pending && <ConfirmDialog service={pending.service} action={pending.action} onClose={() => setPending(undefined)} onConfirm={(confirm) => act(pending.service, pending.action, confirm)} />}
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

// ---- run accounting ------------------------------------------------------------------------
interface RunRecord {
  run_id: string;
  corpus_id: string;
  run_kind: string;
  state: string;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  lanes: { lane: string; status: string; started: number; completed: number; succeeded: number; failed: number; uncertain: number; in_flight: number }[];
  not_applicable: Record<string, string>;
  coverage_reasons: string[];
  costs: { state: string; reasons: { code: string; lane?: string; detail: string }[]; known_display: string; reconciled_at: string } | null;
  check_error?: string;
  label: 'Pending' | 'Complete' | 'Incomplete' | 'Incomplete · Interrupted' | 'Check failed' | 'Unavailable';
  corpus_deleted: boolean;
}

/** Refresh of the accounting view (the spec: every 30 seconds). */
export const ACCOUNTING_REFRESH_MS = 30_000;

function labelOk(label: RunRecord['label']): boolean | null {
  if (label === 'Complete') return true;
  if (label === 'Pending' || label === 'Unavailable') return null;
  return false;
}

function Accounting() {
  const [repo, setRepo, names, free] = useRepo('switchboard.workbench.corpus');
  const [kind, setKind] = useState<'index' | 'schema_proposal'>('index');
  const run = useApi<RunRecord>(repo ? withQuery(`/api/index/${encodeURIComponent(repo)}/runs/latest`, { run_kind: kind }) : null, ACCOUNTING_REFRESH_MS);
  const [error, setError] = useState<string>();
  const [fresh, setFresh] = useState<RunRecord>();
  useEffect(() => setFresh(undefined), [run.data]);
  const record = fresh ?? run.data;
  const reconcile = async () => {
    if (!record) return;
    setError(undefined);
    try {
      setFresh(await api<RunRecord>(`/api/index/${encodeURIComponent(record.corpus_id)}/runs/${encodeURIComponent(record.run_id)}/costs/reconcile`, { method: 'POST' }));
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Section title="Run accounting" id="accounting">
      <div class="row">
        <RepoPicker id="acct-repo" label="Corpus" value={repo} names={names} free={free} onChange={setRepo} />
        <div class="field">
          <label for="acct-kind">Run kind</label>
          <select id="acct-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'index' | 'schema_proposal')}>
            <option value="index">index</option>
            <option value="schema_proposal">schema proposal</option>
          </select>
        </div>
      </div>
      <p class="hint">Refreshed every 30 seconds.</p>
      <ErrorNote error={run.error} />
      <ErrorNote error={error} />
      {record && (
        <div data-testid="accounting">
          <p class="lead">
            Costs: <Status ok={labelOk(record.label)}>{record.label}</Status> <strong data-testid="known-spend">{record.costs?.known_display ?? '—'}</strong>{' '}
            <span class="hint">known spend</span>
          </p>
          <dl class="kv">
            <dt>Run</dt>
            <dd class="mono">{record.run_id}</dd>
            <dt>Kind / state</dt>
            <dd>
              {record.run_kind} / {record.state}
              {record.error ? ` — ${record.error}` : ''}
            </dd>
            <dt>Started</dt>
            <dd>{when(record.started_at)}</dd>
            <dt>Finished</dt>
            <dd>{when(record.finished_at)}</dd>
            {record.costs && (
              <>
                <dt>Reconciled</dt>
                <dd>{when(record.costs.reconciled_at)}</dd>
              </>
            )}
            {record.check_error && (
              <>
                <dt>Check</dt>
                <dd class="error">{record.check_error}</dd>
              </>
            )}
            {record.corpus_deleted && (
              <>
                <dt>Corpus</dt>
                <dd>deleted (the run record stays)</dd>
              </>
            )}
          </dl>
          {record.lanes.length > 0 && (
            <table>
              <caption class="sr-only">Request census per lane</caption>
              <thead>
                <tr>
                  <th scope="col">Lane</th>
                  <th scope="col">Census</th>
                  <th scope="col">Started</th>
                  <th scope="col">Succeeded</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Uncertain</th>
                  <th scope="col">In flight</th>
                </tr>
              </thead>
              <tbody>
                {record.lanes.map((l) => (
                  <tr key={l.lane}>
                    <td class="mono">{l.lane}</td>
                    <td>{l.status}</td>
                    <td>{l.started}</td>
                    <td>{l.succeeded}</td>
                    <td>{l.failed}</td>
                    <td>{l.uncertain}</td>
                    <td>{l.in_flight}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {(record.costs?.reasons.length ?? 0) + record.coverage_reasons.length + Object.keys(record.not_applicable).length > 0 && (
            <ul class="plain">
              {record.costs?.reasons.map((r, i) => (
                <li key={`r${i}`}>
                  <span class="mono">{r.code}</span>
                  {r.lane ? ` (${r.lane})` : ''}: {r.detail}
                </li>
              ))}
              {record.coverage_reasons.map((r) => (
                <li key={r}>{r}</li>
              ))}
              {Object.entries(record.not_applicable).map(([lane, why]) => (
                <li key={lane} class="hint">
                  <span class="mono">{lane}</span>: {why}
                </li>
              ))}
            </ul>
          )}
          <button type="button" class="quiet" onClick={reconcile}>
            Reconcile now
          </button>
        </div>
      )}
    </Section>
  );
}

// ---- alerts and webhooks -------------------------------------------------------------------
interface Delivery {
  id: string;
  event_id: string;
  status: string;
  target: string;
  state: 'pending' | 'delivered' | 'failed' | 'filtered';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
}
interface Targets {
  targets: { id: string; plugin: string; instance_of: string | null; receiver: string }[];
  problems: string[];
}

function Alerts({ deliveries }: { deliveries: Loaded<{ deliveries: Delivery[] }> }) {
  const alerts = useApi<{ alerts: Alert[] }>('/admin/alerts', 30_000);
  return (
    <Section title="Alerts" id="alerts">
      <h3>Firing now</h3>
      <FiringAlerts alerts={alerts} listClass="plain" />
      <h3>Recent deliveries</h3>
      <ErrorNote error={deliveries.error} />
      {deliveries.data &&
        (deliveries.data.deliveries.length === 0 ? (
          <p class="note">No delivery yet.</p>
        ) : (
          <table data-testid="deliveries">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Target</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.deliveries.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.created_at)}</td>
                  <td class="mono">
                    {d.event_id.split('/')[0]} ({d.status})
                  </td>
                  <td class="mono">{d.target}</td>
                  <td>
                    <Status ok={d.state === 'delivered' ? true : d.state === 'failed' ? false : null}>{d.state}</Status>{' '}
                    <span class="hint">
                      {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                      {d.last_status ? ` · HTTP ${d.last_status}` : ''}
                      {d.last_error ? ` · ${d.last_error}` : ''}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </Section>
  );
}

function Webhooks({ onSent }: { onSent: () => void }) {
  const targets = useApi<Targets>('/admin/integrations/webhooks');
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    try {
      setNote(await what());
      targets.reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const add = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const r = await api<{ id: string; env_overridden: boolean }>('/admin/integrations/webhooks/targets', { method: 'POST', body: { url: url.trim() } });
      setUrl('');
      return r.env_overridden ? `Stored as ${r.id}, but WEBHOOK_TARGETS is set in the environment and still wins.` : `Added ${r.id}.`;
    });
  };
  const remove = (id: string) =>
    run(async () => {
      await api(`/admin/integrations/webhooks/targets/${encodeURIComponent(id)}`, { method: 'DELETE' });
      return `Removed ${id}.`;
    });
  const test = (id: string) =>
    run(async () => {
      const r = await api<{ event_id: string; filtered: boolean }>('/admin/alerts/test', { method: 'POST', body: { target: id } });
      onSent();
      return r.filtered ? `The test to ${id} was filtered (see deliveries).` : `Test alert queued for ${id}; its delivery shows below.`;
    });
  return (
    <Section title="Integrations → Webhooks" id="webhooks">
      <p class="hint">Alert receivers (WEBHOOK_TARGETS). URLs are secrets: only the host is shown.</p>
      <ErrorNote error={targets.error} />
      {targets.data && (
        <>
          {targets.data.targets.length === 0 ? (
            <p class="note">No target: alerts go nowhere.</p>
          ) : (
            <table data-testid="targets">
              <thead>
                <tr>
                  <th scope="col">Target</th>
                  <th scope="col">Receiver</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {targets.data.targets.map((t) => (
                  <tr key={t.id}>
                    <td class="mono">{t.id}</td>
                    <td class="mono">{t.receiver}</td>
                    <td>
                      <div class="actions">
                        <button type="button" class="quiet" disabled={busy} onClick={() => test(t.id)} aria-label={`Send test to ${t.id}`}>
                          Send test
                        </button>
                        {t.instance_of !== null && (
                          <button type="button" class="quiet" disabled={busy} onClick={() => remove(t.id)} aria-label={`Remove ${t.id}`}>
                            Remove
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {targets.data.problems.length > 0 && (
            <ul class="plain">
              {targets.data.problems.map((p) => (
                <li key={p} class="error">
                  {p}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <form class="row" onSubmit={add}>
        <div class="field grow">
          <label for="webhook-url">New target URL (https)</label>
          <input id="webhook-url" type="url" autoComplete="off" spellcheck={false} value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://hooks.example.com/…" />
        </div>
        <div class="field">
          <button type="submit" disabled={busy || !url.trim()}>
            Add target
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {note && <p role="status">{note}</p>}
    </Section>
  );
}

export function WorkbenchPage() {
  const deliveries = useApi<{ deliveries: Delivery[] }>('/admin/alerts/deliveries?limit=20', 10_000);
  return (
    <>
      <div class="grid">
        <Judge />
        <Accounting />
      </div>
      <Containers />
      <Alerts deliveries={deliveries} />
      <Webhooks onSent={() => [300, 1000, 2500, 5000].forEach((ms) => setTimeout(deliveries.reload, ms))} />
    </>
  );
}
