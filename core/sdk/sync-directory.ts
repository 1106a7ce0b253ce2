import { close, constants, fsync, open } from 'node:fs';
import { promisify } from 'node:util';

/** Errors of filesystems that refuse fsync on a directory: the file's data is synced already. */
const REFUSED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP']);

// The callback API on a plain descriptor: a FileHandle costs more main-thread time per call, and
// puts call this once or twice each.
const openFd = promisify(open);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/**
 * Makes a rename (or a new entry) in `dir` durable: fsync of the directory. A filesystem that
 * refuses fsync on a directory is not an error of the write; any other failure is.
 */
export async function syncDirectory(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = await openFd(dir, constants.O_RDONLY);
    await fsyncFd(fd);
  } catch (err) {
    if (!REFUSED.has((err as NodeJS.ErrnoException)?.code ?? '')) throw err;
  } finally {
    if (fd !== undefined) await closeFd(fd);
  }
}
