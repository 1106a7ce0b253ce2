import fs, { type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';
import { syncDirectory } from '../sdk/sync-directory.js';

export interface AtomicWriteOptions {
  /** Permission bits of a file that does not exist yet; an existing file keeps its own mode. */
  mode?: number;
  /**
   * The file holds secrets, numbers or documents: it is always written mode 0600 (an existing
   * file with a looser mode is tightened) and a directory created for it is 0700.
   */
  private?: boolean;
  /** The rename step. Injectable so a test can make it fail with a chosen errno. */
  rename?: (from: string, to: string) => Promise<void>;
}

/** How the new content reached the target. */
export type AtomicWriteMethod = 'rename' | 'in-place';

// A file bind-mounted into a container cannot be replaced by rename (EBUSY), and a target on
// another filesystem cannot be renamed onto (EXDEV); for those the same inode is rewritten.
const IN_PLACE_FALLBACK_CODES = new Set(['EBUSY', 'EXDEV']);

/**
 * Replaces `file` with `data` so readers see the old content or the new one, never a part:
 * a temp file in the same directory, fsync, rename over the target, fsync the directory.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteMethod> {
  const rename = options.rename ?? fs.rename;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  const dir = path.dirname(file);
  if (options.private) await ensurePrivateDir(dir);
  else await fs.mkdir(dir, { recursive: true });
  const mode = options.private ? PRIVATE_FILE_MODE : await existingMode(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);

  try {
    await writeAndSync(tmp, 'wx', bytes, mode ?? options.mode);
  } catch (err) {
    await removeQuietly(tmp);
    throw err;
  }

  try {
    await rename(tmp, file);
  } catch (err) {
    if (!IN_PLACE_FALLBACK_CODES.has(errnoCode(err))) {
      await removeQuietly(tmp);
      throw err;
    }
    try {
      await rewriteInPlace(file, bytes, options.private ? PRIVATE_FILE_MODE : options.mode, !!options.private);
    } finally {
      await removeQuietly(tmp);
    }
    return 'in-place';
  }
  await syncDirectory(dir);
  return 'rename';
}

async function writeAndSync(file: string, flags: string, bytes: Buffer, mode: number | undefined): Promise<void> {
  const handle = await fs.open(file, flags, mode);
  try {
    // open's mode is filtered by the umask: set it exactly.
    if (mode !== undefined) await handle.chmod(mode);
    await writeAll(handle, bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// Rewrites the existing inode (or creates the file), so a bind mount keeps pointing at it.
async function rewriteInPlace(file: string, bytes: Buffer, mode: number | undefined, exact: boolean): Promise<void> {
  let handle: FileHandle;
  let created = false;
  try {
    handle = await fs.open(file, 'r+');
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw err;
    handle = await fs.open(file, 'w', mode);
    created = true;
  }
  try {
    if (mode !== undefined && (created || exact)) await handle.chmod(mode);
    await writeAll(handle, bytes);
    await handle.truncate(bytes.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
    offset += bytesWritten;
  }
}

async function existingMode(file: string): Promise<number | undefined> {
  try {
    return (await fs.stat(file)).mode & 0o7777;
  } catch {
    return undefined;
  }
}

async function removeQuietly(file: string): Promise<void> {
  await fs.rm(file, { force: true }).catch(() => {});
}

function errnoCode(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    ? (err as { code: string }).code
    : '';
}
