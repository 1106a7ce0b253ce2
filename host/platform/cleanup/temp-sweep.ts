import { lstat, readdir, unlink } from 'node:fs/promises';
import path from 'node:path';

/** When this process started, in ms since the epoch. */
export const PROCESS_STARTED_AT = Math.floor(performance.timeOrigin);

/**
 * Removes the files directly in `dir` last modified before `startedAt`: temp files of requests
 * a killed process left behind. A file this process is writing is always newer than it, so
 * the sweep is safe at start and while serving. Returns how many files went.
 */
export async function sweepTempFiles(dir: string, startedAt = PROCESS_STARTED_AT): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const info = await lstat(file).catch(() => undefined);
    if (!info || info.isDirectory() || info.mtimeMs >= startedAt) continue;
    try {
      await unlink(file);
      removed++;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}
