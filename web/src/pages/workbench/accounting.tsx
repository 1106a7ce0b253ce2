import { useEffect, useState } from 'preact/hooks';
import { sb, unwrap, type RunRecord } from '../../api.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/notes.js';
import { RepoPicker, useRepo } from '../../components/repo-picker.js';
import { Section } from '../../components/section.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet, type GetParams } from '../../hooks/use-api.js';
import { RunRecordView } from './run-record.js';

/** Refresh of the accounting view (the spec: every 30 seconds). */
export const ACCOUNTING_REFRESH_MS = 30_000;

type RunKind = NonNullable<NonNullable<GetParams<'/api/index/{corpus_id}/runs/latest'>['query']>['run_kind']>;

/** The latest run of a corpus and kind, with its accounting, re-read every 30 seconds; a reconcile on demand. */
export function Accounting() {
  const [repo, setRepo, names, free] = useRepo('switchboard.workbench.corpus');
  const [kind, setKind] = useState<RunKind>('index');
  const run = useGet(repo ? '/api/index/{corpus_id}/runs/latest' : null, { path: { corpus_id: repo }, query: { run_kind: kind } }, ACCOUNTING_REFRESH_MS);
  const [fresh, setFresh] = useState<RunRecord>();
  useEffect(() => setFresh(undefined), [run.data]);
  const record = fresh ?? run.data;
  const reconcile = useAction();
  const reconcileNow = (r: RunRecord) =>
    reconcile.run(async () => setFresh(await unwrap(sb.POST('/api/index/{corpus_id}/runs/{run_id}/costs/reconcile', { params: { path: { corpus_id: r.corpus_id, run_id: r.run_id } } }))));
  return (
    <Section title="Run accounting" id="accounting">
      <div class="row">
        <RepoPicker id="acct-repo" label="Corpus" value={repo} names={names} free={free} onChange={setRepo} />
        <Field id="acct-kind" label="Run kind">
          <select id="acct-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as RunKind)}>
            <option value="index">index</option>
            <option value="schema_proposal">schema proposal</option>
          </select>
        </Field>
      </div>
      <p class="hint">Refreshed every 30 seconds.</p>
      <ErrorNote error={run.error} />
      <ErrorNote error={reconcile.error} />
      {record && (
        <div data-testid="accounting">
          <RunRecordView record={record} />
          <button type="button" class="quiet" onClick={() => reconcileNow(record)}>
            Reconcile now
          </button>
        </div>
      )}
    </Section>
  );
}
