import { setTimeout as sleep } from 'node:timers/promises';
import { RunAlreadyRunningError, type IndexRunStore } from '../indexing/index-run-store.js';
import type { IndexRuns } from '../indexing/index-runs.js';

/** How often a revision waiting for another run of its repository looks again. */
const WAIT_STEP_MS = 500;

/**
 * Indexes an exported git revision and resolves when its run has finished (throws when it did
 * not). A run of the repository under way (another revision, or another instance of a cluster
 * indexing the same one: index runs are one per repository in the shared table) is waited for,
 * up to `waitMs`.
 */
export async function indexRevision(
  runs: IndexRuns,
  store: IndexRunStore,
  repo: string,
  revision: { name: string; dir: string; isDefault: boolean },
  waitMs: number,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const run = await runs.start(repo, false, revision.isDefault ? {} : { revision });
      await runs.settled(run.id);
      const ended = await store.get(run.id);
      if (ended?.state !== 'finished') throw new Error(`indexing ${revision.name} ended ${ended?.state ?? 'unknown'}: ${ended?.error ?? ''}`);
      return;
    } catch (err) {
      if (!(err instanceof RunAlreadyRunningError) || Date.now() > deadline) throw err;
      await sleep(WAIT_STEP_MS);
    }
  }
}
