import type { FaxBatch } from '../../api.js';
import { href } from '../../router.js';

const lastFour = (to: string) => `${'*'.repeat(Math.max(0, to.length - 4))}${to.slice(-4)}`;

/** A batch just sent: one job per number, each linked to its detail (numbers masked, as the job list shows them). */
export function BatchSent({ batch }: { batch: FaxBatch }) {
  return (
    <div class="preview" data-testid="batch" aria-live="polite">
      <p>
        Sent as batch <span class="mono">{batch.batch_id.slice(0, 8)}</span>: {batch.pages} {batch.pages === 1 ? 'page' : 'pages'} to {batch.jobs.length} numbers.
      </p>
      <ul>
        {batch.jobs.map((job) => (
          <li key={job.id}>
            <a class="mono" href={href(`fax/jobs/${job.id}`)}>
              {job.id.slice(0, 8)}
            </a>{' '}
            to <span class="mono">{lastFour(job.to)}</span>: {job.status}
          </li>
        ))}
      </ul>
    </div>
  );
}
