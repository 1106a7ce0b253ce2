import { stat } from 'node:fs/promises';
import path from 'node:path';

/** A file's stamp when the index read it (the chunk metadata `file_size` and `file_mtime_ms`). */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

/** The stamp a hit's metadata carries, when the indexer wrote one. */
export function stampOf(metadata: Record<string, unknown>): FileStamp | undefined {
  const size = metadata.file_size;
  const mtimeMs = metadata.file_mtime_ms;
  return typeof size === 'number' && typeof mtimeMs === 'number' ? { size, mtimeMs } : undefined;
}

/**
 * Whether a file changed or vanished since it was indexed: one stat, compared with the stamp (no
 * read). A path that would leave the repository counts as vanished and is never looked at.
 */
export async function isStale(repoDir: string, rel: string, stamp: FileStamp): Promise<boolean> {
  const root = path.resolve(repoDir);
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep)) return true;
  const info = await stat(file).catch(() => undefined);
  return !info || !info.isFile() || info.size !== stamp.size || info.mtimeMs !== stamp.mtimeMs;
}

/** Sets `stale` on every item that has a stamp (one stat per distinct path). */
export async function markStale<T extends { path: string; stamp?: FileStamp; stale?: boolean }>(repoDir: string, items: T[]): Promise<T[]> {
  const checks = new Map<string, Promise<boolean>>();
  await Promise.all(
    items.map(async (item) => {
      if (!item.stamp) return;
      const key = `${item.path}\0${item.stamp.size}\0${item.stamp.mtimeMs}`;
      let check = checks.get(key);
      if (!check) checks.set(key, (check = isStale(repoDir, item.path, item.stamp)));
      item.stale = await check;
    }),
  );
  return items;
}
