import { useEffect, useState } from 'preact/hooks';
import { sb, unwrap } from '../../api.js';
import { ErrorNote } from '../../components/notes.js';
import { Section } from '../../components/section.js';
import { Status } from '../../components/status.js';
import { when } from '../../format.js';
import { useAction } from '../../hooks/use-action.js';
import { useGet } from '../../hooks/use-api.js';

/** Start an index run and follow its status lines: polled every second while it runs. */
export function IndexRuns({ repo, onFinished }: { repo: string; onFinished: (at: string | null) => void }) {
  const [running, setRunning] = useState(false);
  const status = useGet(repo ? '/api/index/status' : null, { query: { repo } }, running ? 1000 : 15_000);
  const [enrich, setEnrich] = useState(false);
  const action = useAction();
  const state = status.data?.run?.state;
  useEffect(() => setRunning(state === 'running'), [state]);
  const finishedAt = status.data?.metadata.finished_at;
  useEffect(() => onFinished(finishedAt ?? null), [finishedAt]);
  const start = () =>
    action.run(async () => {
      await unwrap(sb.POST('/api/index/start', { body: { repo, enrich } }));
      setRunning(true);
      status.reload();
    });
  return (
    <Section title="Index runs" id="index">
      <div class="row">
        <label class="check">
          <input type="checkbox" checked={enrich} onChange={(e) => setEnrich(e.currentTarget.checked)} /> Enrich chunks (LLM summaries)
        </label>
        <button type="button" onClick={start} disabled={action.busy !== null || running || !repo}>
          {running ? 'Indexing…' : 'Start indexing'}
        </button>
      </div>
      <ErrorNote error={action.error ?? status.error} />
      {status.data && (
        <>
          <p data-testid="index-state">
            Latest run: <Status ok={state === 'finished' ? true : state === 'running' || !state ? null : false}>{state ?? 'never indexed'}</Status>{' '}
            {status.data.metadata.started_at && <span class="hint">started {when(status.data.metadata.started_at)}</span>}{' '}
            {status.data.metadata.finished_at && <span class="hint">finished {when(status.data.metadata.finished_at)}</span>}
          </p>
          <ol class="status-lines mono" aria-live="polite" aria-label="Index status lines">
            {status.data.status.map((l, i) => (
              <li key={i}>{l}</li>
            ))}
          </ol>
        </>
      )}
    </Section>
  );
}
