import type { RunRecord } from '../../api.js';
import { Status } from '../../components/status.js';
import { when } from '../../format.js';
import { LanesTable } from './lanes-table.js';

function labelOk(label: RunRecord['label']): boolean | null {
  if (label === 'Complete') return true;
  if (label === 'Pending' || label === 'Unavailable') return null;
  return false;
}

function Reasons({ record }: { record: RunRecord }) {
  if ((record.costs?.reasons.length ?? 0) + record.coverage_reasons.length + Object.keys(record.not_applicable).length === 0) return null;
  return (
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
  );
}

/** A run's accounting in the spec's words: its label and known spend, its facts, census and reasons. */
export function RunRecordView({ record }: { record: RunRecord }) {
  return (
    <>
      <p class="lead">
        Costs: <Status ok={labelOk(record.label)}>{record.label}</Status> <strong data-testid="known-spend">{record.costs?.known_display ?? '—'}</strong> <span class="hint">known spend</span>
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
      {record.lanes.length > 0 && <LanesTable lanes={record.lanes} />}
      <Reasons record={record} />
    </>
  );
}
