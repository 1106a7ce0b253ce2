import { useEffect, useState } from 'preact/hooks';
import { errorText, sb, type ApiResponse } from '../../../api.js';
import { ErrorNote } from '../../../components/notes.js';
import { Section } from '../../../components/section.js';
import { Table, type Column } from '../../../components/table.js';
import { when } from '../../../format.js';
import { useGet } from '../../../hooks/use-api.js';

type AuditRecord = ApiResponse<'/admin/logs', 'get'>['records'][number];

function describe(r: AuditRecord): string {
  const { id: _id, ts: _ts, event: _event, ...rest } = r;
  return Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

const COLUMNS: Column<AuditRecord>[] = [
  { header: 'Time', cell: (r) => when(r.ts) },
  { header: 'Event', class: 'mono', cell: (r) => r.event },
  { header: 'Details', class: 'mono hint hash', cell: describe },
];

/** The newest audit records, and a live tail (GET /admin/logs/tail, read with the key in a header). */
export function AuditLog() {
  const recent = useGet('/admin/logs', { query: { limit: 50 } });
  const [live, setLive] = useState<AuditRecord[]>([]);
  const [tailing, setTailing] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!tailing) return;
    const ctl = new AbortController();
    (async () => {
      for await (const { event, data } of sb.events('GET', '/admin/logs/tail', { signal: ctl.signal })) {
        if (event === 'audit') setLive((l) => [data as AuditRecord, ...l].slice(0, 200));
      }
    })()
      .then(() => !ctl.signal.aborted && setTailing(false))
      .catch((err: unknown) => {
        if (!ctl.signal.aborted) (setError(errorText(err)), setTailing(false));
      });
    return () => ctl.abort();
  }, [tailing]);
  const seen = new Set(live.map((r) => r.id));
  const records = [...live, ...(recent.data?.records ?? []).filter((r) => !seen.has(r.id))];
  return (
    <Section title="Audit log" id="audit">
      <div class="row">
        <button type="button" aria-pressed={tailing} onClick={() => (setError(undefined), setTailing(!tailing))}>
          {tailing ? 'Stop live tail' : 'Start live tail'}
        </button>
        <button type="button" class="quiet" onClick={() => (setLive([]), recent.reload())}>
          Refresh
        </button>
        <span role="status" class="hint" data-testid="tail-state">
          {tailing ? 'Live: new records appear at the top.' : ''}
        </span>
      </div>
      <ErrorNote error={recent.error ?? error} />
      {recent.data && records.length === 0 && <p class="note">No audit records yet. They are kept while AUDIT_LOG_ENABLED is true (the default).</p>}
      {records.length > 0 && <Table testId="audit" rows={records} columns={COLUMNS} rowKey={(r) => r.id} />}
    </Section>
  );
}
