import { useEffect, useRef, useState } from 'preact/hooks';
import { api, download, errorText, upload } from '../api.js';
import { ErrorNote, Section, Status, when } from '../components.js';
import { useApi } from '../hooks.js';
import { href, navigate, type Route } from '../router.js';

// The number rule of the API (host/surfaces/fax/jobs/phone.ts): separators ignored, then an
// optional "+" and 6 to 20 digits.
export function normalizePhone(input: string): string | null {
  const compact = input.trim().replace(/[\s\-.()[\]]/g, '');
  return /^\+?\d{6,20}$/.test(compact) ? compact : null;
}
const PHONE_RULE = 'An optional "+" and 6 to 20 digits; spaces, dashes, dots and brackets are ignored.';

interface Prepared {
  approval_id: string;
  to: string;
  pages: number;
  size_bytes: number;
  sha256: string;
  expires_at: string;
}
interface JobSummary {
  id: string;
  to: string;
  status: string;
  error: string | null;
  pages: number | null;
  backend: string;
  provider_sid: string | null;
  created_at: string;
  updated_at: string;
}
interface Attempt {
  attempt: number;
  started_at: string;
  ended_at?: string;
  outcome?: string;
  line_failure?: string;
  error?: string;
  provider_sid?: string;
}
interface JobDetail extends JobSummary {
  source_type: string;
  size_bytes: number;
  dispatch_state: string;
  attempts: number;
  next_attempt_at: string | null;
  sent_at: string | null;
  last_checked_at: string | null;
  finished_at: string | null;
  artifacts_removed_at: string | null;
  pdf_available: boolean;
  cover_page: boolean;
  document_sha256: string | null;
  attempt_history: Attempt[];
}
interface Inbound {
  id: string;
  provider: string;
  from: string | null;
  to: string | null;
  status: string;
  pages: number | null;
  received_at: string;
}

const FINAL = new Set(['SUCCESS', 'FAILED', 'disabled']);

function statusBadge(status: string) {
  return <Status ok={status === 'SUCCESS' ? true : status === 'FAILED' ? false : null}>{status}</Status>;
}

function kb(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Send: number and document, then a preview with the page count (POST /fax/prepare), then send by approval. */
function SendFax() {
  const [to, setTo] = useState('');
  const [touched, setTouched] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string>();
  const [prepared, setPrepared] = useState<Prepared | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const normalized = normalizePhone(to);
  const numberError = touched && to !== '' && !normalized ? PHONE_RULE : undefined;

  const choose = (f: File | null | undefined) => {
    setFile(f ?? null);
    setPrepared(null);
    setError(undefined);
  };

  const prepare = async (e: Event) => {
    e.preventDefault();
    setTouched(true);
    if (!normalized) return setError(`The number: ${PHONE_RULE}`);
    if (!file) return setError('Choose a document to send (PDF, text, PNG, JPEG or TIFF).');
    const form = new FormData();
    form.set('to', normalized);
    form.set('file', file, file.name);
    setBusy(`Uploading ${file.name} (${kb(file.size)})…`);
    setProgress(0);
    setError(undefined);
    try {
      setPrepared(
        await upload<Prepared>('/fax/prepare', form, (fraction) => {
          setProgress(fraction);
          if (fraction >= 1) setBusy(`Uploaded ${file.name}; the gateway is checking it and counting its pages…`);
        }),
      );
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
      setProgress(null);
    }
  };

  const send = async () => {
    if (!prepared) return;
    setBusy('Sending…');
    setError(undefined);
    try {
      const job = await api<{ id: string }>(`/fax/approvals/${encodeURIComponent(prepared.approval_id)}/send`, { method: 'POST', body: { sha256: prepared.sha256 } });
      setPrepared(null);
      setFile(null);
      setTo('');
      setTouched(false);
      if (input.current) input.current.value = '';
      navigate(`fax/jobs/${job.id}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Section title="Send a fax" id="send">
      <form onSubmit={prepare} noValidate>
        <div class="field">
          <label for="fax-to">
            Destination number <span class="hint">{PHONE_RULE}</span>
          </label>
          <input
            id="fax-to"
            name="to"
            type="tel"
            autoComplete="off"
            value={to}
            aria-invalid={numberError ? 'true' : undefined}
            aria-describedby={numberError ? 'fax-to-error' : undefined}
            onInput={(e) => (setTo(e.currentTarget.value), setPrepared(null))}
            onBlur={() => setTouched(true)}
          />
          {numberError && (
            <span id="fax-to-error" class="error-inline">
              {numberError}
            </span>
          )}
        </div>
        <div
          class={over ? 'drop over' : 'drop'}
          onDragOver={(e) => (e.preventDefault(), setOver(true))}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setOver(false);
            choose(e.dataTransfer?.files[0]);
          }}
          data-testid="dropzone"
        >
          <label for="fax-file">Document</label> <span class="hint">drop a file here, or choose one:</span>{' '}
          <input id="fax-file" ref={input} type="file" accept=".pdf,.txt,.png,.jpg,.jpeg,.tif,.tiff,application/pdf,text/plain,image/png,image/jpeg,image/tiff" onChange={(e) => choose(e.currentTarget.files?.[0])} />
          {file && (
            <p class="hint" data-testid="chosen-file">
              {file.name}, {kb(file.size)}
            </p>
          )}
        </div>
        <div class="row">
          <button type="submit" disabled={busy !== null}>
            Check document and count pages
          </button>
        </div>
      </form>
      {busy && (
        <p role="status" class="note">
          {progress !== null && progress < 1 ? <progress aria-label="Upload" max={1} value={progress} /> : <progress aria-label="Working" />} {busy}
        </p>
      )}
      <ErrorNote error={error} />
      {prepared && (
        <div class="preview" data-testid="preview" aria-live="polite">
          <p>
            <strong>
              {prepared.pages} {prepared.pages === 1 ? 'page' : 'pages'}
            </strong>{' '}
            to <span class="mono">{prepared.to}</span> ({kb(prepared.size_bytes)}). This preview expires {when(prepared.expires_at)}.
          </p>
          <div class="row">
            <button type="button" onClick={send} disabled={busy !== null}>
              Send {prepared.pages} {prepared.pages === 1 ? 'page' : 'pages'}
            </button>
            <button type="button" class="quiet" onClick={() => setPrepared(null)}>
              Change
            </button>
          </div>
        </div>
      )}
    </Section>
  );
}

/** Jobs: filters, masked numbers, paging by cursor (a stack of cursors to go back). */
function JobList({ route }: { route: Route }) {
  const status = route.query.get('status') ?? '';
  const backend = route.query.get('backend') ?? '';
  const since = route.query.get('since') ?? '';
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const query = new URLSearchParams({ limit: '20' });
  if (status) query.set('status', status);
  if (backend) query.set('backend', backend);
  if (since) query.set('since', new Date(since).toISOString());
  if (cursor) query.set('cursor', cursor);
  const jobs = useApi<{ jobs: JobSummary[]; next_cursor: string | null }>(`/admin/fax-jobs?${query}`, 10_000);
  const [draft, setDraft] = useState({ status, backend, since });
  return (
    <Section title="Jobs" id="jobs">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([]);
          navigate('fax', { status: draft.status, backend: draft.backend.trim(), since: draft.since });
        }}
      >
        <div class="field">
          <label for="f-status">Status</label>
          <select id="f-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}>
            <option value="">any</option>
            {['queued', 'in_progress', 'SUCCESS', 'FAILED', 'disabled'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-backend">Backend</label>
          <input id="f-backend" value={draft.backend} onInput={(e) => setDraft({ ...draft, backend: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="f-since">Created since</label>
          <input id="f-since" type="datetime-local" value={draft.since} onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })} />
        </div>
        <div class="field">
          <button type="submit">Filter</button>
        </div>
      </form>
      <ErrorNote error={jobs.error} />
      {jobs.data &&
        (jobs.data.jobs.length === 0 ? (
          <p class="note">No jobs{status || backend || since ? ' match these filters' : ' yet'}.</p>
        ) : (
          <table data-testid="jobs">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Pages</th>
                <th scope="col">Backend</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.jobs.map((j) => (
                <tr key={j.id}>
                  <td>
                    <a class="mono" href={href(`fax/jobs/${j.id}`)}>
                      {j.id.slice(0, 8)}
                    </a>
                  </td>
                  <td class="mono">{j.to}</td>
                  <td>
                    {statusBadge(j.status)}
                    {j.error && <div class="hint">{j.error}</div>}
                  </td>
                  <td>{j.pages ?? '—'}</td>
                  <td>{j.backend}</td>
                  <td>{when(j.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <div class="pager">
        <button type="button" class="quiet" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" class="quiet" disabled={!jobs.data?.next_cursor} onClick={() => jobs.data?.next_cursor && setCursors([...cursors, jobs.data.next_cursor])}>
          Next page
        </button>
        <span class="hint">Page {cursors.length + 1}</span>
      </div>
    </Section>
  );
}

interface TimelineEvent {
  at: string;
  what: string;
  detail?: string;
  ok?: boolean | null;
}

/** The job's events in time order, from its record and its attempts. */
export function timelineOf(job: JobDetail): TimelineEvent[] {
  const events: TimelineEvent[] = [{ at: job.created_at, what: 'Accepted and queued', detail: `${job.source_type}, ${kb(job.size_bytes)}${job.cover_page ? ', with a cover page' : ''}` }];
  for (const a of job.attempt_history) {
    events.push({ at: a.started_at, what: `Attempt ${a.attempt} started`, ...(a.provider_sid ? { detail: `provider id ${a.provider_sid}` } : {}) });
    if (a.ended_at)
      events.push({
        at: a.ended_at,
        what: `Attempt ${a.attempt} ended: ${a.outcome ?? 'unknown'}${a.line_failure ? ` (${a.line_failure})` : ''}`,
        ok: a.outcome === 'SUCCESS' ? true : a.outcome ? false : null,
        ...(a.error ? { detail: a.error } : {}),
      });
  }
  if (job.last_checked_at) events.push({ at: job.last_checked_at, what: 'Status last checked with the provider' });
  if (job.next_attempt_at) events.push({ at: job.next_attempt_at, what: 'Next attempt scheduled' });
  if (job.finished_at) events.push({ at: job.finished_at, what: `Finished: ${job.status}`, ok: job.status === 'SUCCESS', ...(job.error ? { detail: job.error } : {}) });
  if (job.artifacts_removed_at) events.push({ at: job.artifacts_removed_at, what: 'Document removed by cleanup' });
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

function JobDetailView({ id }: { id: string }) {
  const [live, setLive] = useState(true);
  const job = useApi<JobDetail>(`/admin/fax-jobs/${encodeURIComponent(id)}`, live ? 2000 : undefined);
  const [error, setError] = useState<string>();
  const final = job.data !== undefined && FINAL.has(job.data.status);
  useEffect(() => {
    if (final) setLive(false);
  }, [final]);
  const d = job.data;
  return (
    <>
      <p>
        <a href={href('fax')}>← All jobs</a>
      </p>
      <Section title={`Job ${id}`} id="job">
        <ErrorNote error={job.error ?? error} />
        {d && (
          <>
            <dl class="kv" data-testid="job-detail">
              <dt>Status</dt>
              <dd>
                {statusBadge(d.status)} {!FINAL.has(d.status) && <span class="hint">(updating)</span>}
              </dd>
              <dt>To</dt>
              <dd class="mono">{d.to}</dd>
              <dt>Pages</dt>
              <dd>{d.pages ?? '—'}</dd>
              <dt>Backend</dt>
              <dd>{d.backend}</dd>
              <dt>Dispatch</dt>
              <dd>{d.dispatch_state}</dd>
              <dt>Attempts</dt>
              <dd>{d.attempts}</dd>
              {d.provider_sid && (
                <>
                  <dt>Provider id</dt>
                  <dd class="mono">{d.provider_sid}</dd>
                </>
              )}
              {d.error && (
                <>
                  <dt>Error</dt>
                  <dd>{d.error}</dd>
                </>
              )}
              {d.document_sha256 && (
                <>
                  <dt>Document SHA-256</dt>
                  <dd class="mono hash">{d.document_sha256}</dd>
                </>
              )}
            </dl>
            <h3>Timeline</h3>
            <ol class="timeline" data-testid="timeline">
              {timelineOf(d).map((e, i) => (
                <li key={i}>
                  <time dateTime={e.at}>{when(e.at)}</time> — {e.ok === undefined ? e.what : <Status ok={e.ok}>{e.what}</Status>}
                  {e.detail && <div class="hint">{e.detail}</div>}
                </li>
              ))}
            </ol>
            <div class="row">
              <button type="button" class="quiet" disabled={!d.pdf_available} onClick={() => download(`/admin/fax-jobs/${encodeURIComponent(d.id)}/pdf`, `fax-${d.id}.pdf`).catch((e) => setError(errorText(e)))}>
                Download the document
              </button>
              <button type="button" class="quiet" disabled={!FINAL.has(d.status)} onClick={() => download(`/fax/${encodeURIComponent(d.id)}/report`, `fax-${d.id}-report.pdf`).catch((e) => setError(errorText(e)))}>
                Transmission report
              </button>
            </div>
          </>
        )}
      </Section>
    </>
  );
}

function InboundList() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useApi<{ faxes: Inbound[]; next_cursor: string | null }>(`/inbound?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, 15_000);
  const [error, setError] = useState<string>();
  return (
    <Section title="Inbound faxes" id="inbound">
      <ErrorNote error={list.error ?? error} />
      {list.data &&
        (list.data.faxes.length === 0 ? (
          <p class="note">No inbound fax yet.</p>
        ) : (
          <table data-testid="inbound">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Pages</th>
                <th scope="col">Status</th>
                <th scope="col">Document</th>
              </tr>
            </thead>
            <tbody>
              {list.data.faxes.map((f) => (
                <tr key={f.id}>
                  <td>{when(f.received_at)}</td>
                  <td class="mono">{f.from ?? '—'}</td>
                  <td class="mono">{f.to ?? '—'}</td>
                  <td>{f.pages ?? '—'}</td>
                  <td>{f.status}</td>
                  <td>
                    <button type="button" class="quiet" aria-label={`Download PDF of the fax received ${when(f.received_at)}`} onClick={() => download(`/inbound/${encodeURIComponent(f.id)}/pdf`, `inbound-${f.id}.pdf`).catch((e) => setError(errorText(e)))}>
                      Download PDF
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <div class="pager">
        <button type="button" class="quiet" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" class="quiet" disabled={!list.data?.next_cursor} onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}>
          Next page
        </button>
      </div>
    </Section>
  );
}

export function FaxPage({ route }: { route: Route }) {
  const [, sub, id] = route.parts;
  const tab = sub === 'inbound' ? 'inbound' : 'outbound';
  return (
    <>
      <nav aria-label="Fax" class="tabs">
        <a href={href('fax')} aria-current={tab === 'outbound' ? 'page' : undefined}>
          Send and jobs
        </a>
        <a href={href('fax/inbound')} aria-current={tab === 'inbound' ? 'page' : undefined}>
          Inbound
        </a>
      </nav>
      {sub === 'jobs' && id ? (
        <JobDetailView id={id} />
      ) : tab === 'inbound' ? (
        <InboundList />
      ) : (
        <>
          <SendFax />
          <JobList route={route} />
        </>
      )}
    </>
  );
}

