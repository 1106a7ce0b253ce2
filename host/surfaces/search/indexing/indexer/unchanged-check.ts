import type { RetrievalStats } from '../../../../../core/sdk/index.js';
import type { RunCounts } from '../index-run-store.js';
import { walkRepositorySync, type DirListing } from './file-walk.js';
import { SKIPPED_HASH, readStamps, sameStamp, stampsFile, writeStamps } from './file-stamps.js';
import { jobCorpus, type IndexJob } from './protocol.js';
import { existsSync } from 'node:fs';
import { codeIndexFile } from '../../code-index/code-index-db.js';

/**
 * The check before a run spawns its indexer child: when every file of the walk has the stamp the
 * last committed run left (size, mtime, inode), no file was added or removed, the stamps are of
 * this backend and the backend holds as many sources as the stamps say, nothing changed and the
 * run ends without the child (its start-up and module loading are most of a no-change run).
 * Anything else, or any doubt, answers undefined and the child runs as before.
 */
export async function nothingChanged(job: IndexJob, indexed: Pick<RetrievalStats, 'sources' | 'vectors'>): Promise<RunCounts | undefined> {
  const file = stampsFile(job.backend.dataDir, jobCorpus(job));
  const cache = await readStamps(file);
  if (cache.backend !== job.backend.pluginId || !cache.files.size) return undefined;
  // No code index yet (an index from before it existed): the child builds it.
  if (!existsSync(codeIndexFile(job.backend.dataDir, job.repo, job.rev))) return undefined;
  const dirs = new Map<string, DirListing>();
  let walked;
  try {
    walked = walkRepositorySync(job.repoDir, { maxBytes: job.maxFileBytes, skipDependencies: !job.includeDependencies, listings: { previous: cache.dirs, next: dirs, startedMs: Date.now() } });
  } catch {
    return undefined; // the child reports an unreadable repository
  }
  if (walked.files.length !== cache.files.size) return undefined;
  let passedOver = 0;
  for (const f of walked.files) {
    const stamp = cache.files.get(f.rel);
    if (!stamp || !sameStamp(stamp, f)) return undefined;
    if (stamp[2] === SKIPPED_HASH) passedOver++;
  }
  // Every walked path has its stamp and the counts agree, so no stamped file left either; the
  // backend must hold exactly the stamped sources (an index wiped or rebuilt elsewhere does not).
  if (indexed.sources !== walked.files.length - passedOver) return undefined;
  // Directories old enough to be recorded now (or gone): keep the listings current, as the child would.
  const dirsMoved = dirs.size !== cache.dirs.size || [...dirs].some(([rel, listing]) => cache.dirs.get(rel) !== listing);
  if (dirsMoved) await writeStamps(file, { ...cache, dirs }).catch(() => {});
  return { files_seen: walked.files.length, files_changed: 0, files_removed: 0, files_skipped: walked.skipped + passedOver, chunks: 0, vectors: indexed.vectors };
}
