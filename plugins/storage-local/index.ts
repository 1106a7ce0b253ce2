import { close, constants, createReadStream, createWriteStream, open, write } from 'node:fs';
import { promisify } from 'node:util';
import { mkdir, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import {
  assertStorageKey,
  dataPath,
  definePlugin,
  StorageKeyError,
  StorageNotFoundError,
  z,
  type StorageEntry,
  type StorageProvider,
} from 'switchboard/sdk';
import { DirectorySync } from './directory-sync.js';

const settings = z.object({
  /** Directory of the artifacts, inside the host's DATA_DIR (the kernel resolves and checks it). */
  root: dataPath('storage'),
});

/** Where puts are written before their rename. */
const TMP_DIR = '.tmp';

// Puts of buffers use the callback API on plain descriptors: a FileHandle costs more main-thread
// time per call, and a put makes several.
const openFd = promisify(open);
const writeFd = (fd: number, data: Buffer, at: number, length: number) =>
  new Promise<number>((resolve, reject) => write(fd, data, at, length, null, (err, written) => (err ? reject(err) : resolve(written))));
const closeFd = promisify(close);
/** New temp files: data on disk when a write returns (O_DSYNC), never an existing file (O_EXCL). */
const WRITE_DURABLY = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_DSYNC;

/** Resolves a key inside root, refusing anything that would land outside it. */
function keyPath(root: string, key: string): string {
  assertStorageKey(key);
  if (key === TMP_DIR || key.startsWith(`${TMP_DIR}/`)) throw new StorageKeyError(key, `"${TMP_DIR}" is reserved for writes in progress`);
  const full = path.resolve(root, key);
  if (!full.startsWith(root + path.sep)) throw new StorageKeyError(key, 'escapes the storage root');
  return full;
}

function notFound(err: unknown, key: string): never {
  if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') throw new StorageNotFoundError(key);
  throw err;
}

export function createLocalStorage(root: string): StorageProvider {
  const tmpDir = path.join(root, TMP_DIR);
  const directories = new DirectorySync();
  /** Opens a new temp file, creating the temp dir only when it is missing (not on every put). */
  const openTemp = async (tmp: string) => {
    try {
      return await openFd(tmp, WRITE_DURABLY, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(tmpDir, { recursive: true, mode: 0o700 });
      return openFd(tmp, WRITE_DURABLY, 0o600);
    }
  };
  return {
    async put(key, data) {
      const target = keyPath(root, key);
      const dir = path.dirname(target);
      // Documents: directories 0700 (the umask can only take bits away), files 0600.
      const created = await mkdir(dir, { recursive: true, mode: 0o700 });
      // Write beside, fsync, then rename: a reader never sees half an object.
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      let size = 0;
      try {
        if (Buffer.isBuffer(data)) {
          // A buffer needs no stream machinery: written on a plain descriptor opened O_DSYNC, so
          // each write returns once its data is on disk (no separate fdatasync call).
          const fd = await openTemp(tmp);
          try {
            for (let at = 0; at < data.length; ) at += await writeFd(fd, data, at, data.length - at);
          } finally {
            await closeFd(fd);
          }
          size = data.length;
        } else {
          await mkdir(tmpDir, { recursive: true, mode: 0o700 });
          // flush: the data is fsynced before the stream closes.
          const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true });
          await pipeline(data, out);
          size = out.bytesWritten;
        }
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      // Durable means the names too: the file's entry in `dir`, and the entry of every directory
      // mkdir created in its parent. Concurrent puts share these fsyncs (group commit).
      const parents = [dir];
      if (created) for (let d = dir; d !== path.dirname(created); ) parents.push((d = path.dirname(d)));
      await Promise.all(parents.map((d) => directories.sync(d)));
      return { key, size, modifiedAt: new Date() };
    },
    async get(key) {
      return readFile(keyPath(root, key)).catch((err) => notFound(err, key));
    },
    async stream(key) {
      const file = keyPath(root, key);
      await stat(file).catch((err) => notFound(err, key));
      return createReadStream(file);
    },
    async delete(key) {
      try {
        await unlink(keyPath(root, key));
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
    async exists(key) {
      try {
        return (await stat(keyPath(root, key))).isFile();
      } catch {
        return false;
      }
    },
    async list(prefix = '') {
      if (prefix) assertStorageKey(prefix.replace(/\/$/, ''));
      const out: StorageEntry[] = [];
      const walk = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const entry of entries) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) {
            if (full !== tmpDir) await walk(full);
          } else if (entry.isFile()) {
            const key = path.relative(root, full).split(path.sep).join('/');
            if (key.startsWith(prefix)) {
              const info = await stat(full);
              out.push({ key, size: info.size, modifiedAt: info.mtime });
            }
          }
        }
      };
      await walk(root);
      return out.sort((a, b) => a.key.localeCompare(b.key));
    },
    localPath(key) {
      return keyPath(root, key);
    },
  };
}

/**
 * Removes half-written puts a killed process left in the temp dir: those older than this
 * process (a put of this process, even of an older generation, is always newer).
 */
async function removeStaleWrites(tmpDir: string): Promise<void> {
  const names = await readdir(tmpDir).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(tmpDir, name);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() && info.mtimeMs < performance.timeOrigin) await rm(file, { force: true });
  }
}

export default definePlugin({
  settings,
  env: { root: 'STORAGE_LOCAL_ROOT' },
  async start(ctx) {
    const root = path.resolve(ctx.dataDir, ctx.settings.root);
    await mkdir(root, { recursive: true, mode: 0o700 });
    await removeStaleWrites(path.join(root, TMP_DIR));
    const storage = createLocalStorage(root);
    return {
      providers: { storage },
      async health() {
        try {
          const probe = `.health-${ctx.generation}`;
          await storage.put(probe, Buffer.from('ok'));
          await storage.delete(probe);
          return { ok: true, info: { root } };
        } catch (err) {
          return { ok: false, detail: `storage root not writable: ${(err as Error).message}` };
        }
      },
    };
  },
});
