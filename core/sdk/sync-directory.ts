import fs, { type FileHandle } from 'node:fs/promises';

/** Errors of filesystems that refuse fsync on a directory: the file's data is synced already. */
const REFUSED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP']);

/**
 * Makes a rename (or a new entry) in `dir` durable: fsync of the directory. A filesystem that
 * refuses fsync on a directory is not an error of the write; any other failure is.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (err) {
    if (!REFUSED.has((err as NodeJS.ErrnoException)?.code ?? '')) throw err;
  } finally {
    await handle?.close();
  }
}
