import type { FaxJobDetail } from '../../api.js';
import { Status } from '../../components/status.js';
import { kb, when } from '../../format.js';

interface TimelineEvent {
  at: string;
  what: string;
  detail?: string;
  ok?: boolean | null;
}

/** The job's events in time order, from its record and its attempts. */
export function timelineOf(job: FaxJobDetail): TimelineEvent[] {
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

export function Timeline({ job }: { job: FaxJobDetail }) {
  return (
    <ol class="timeline" data-testid="timeline">
      {timelineOf(job).map((e, i) => (
        <li key={i}>
          <time dateTime={e.at}>{when(e.at)}</time> — {e.ok === undefined ? e.what : <Status ok={e.ok}>{e.what}</Status>}
          {e.detail && <div class="hint">{e.detail}</div>}
        </li>
      ))}
    </ol>
  );
}
