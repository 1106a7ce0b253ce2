import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StorageNotFoundError } from '../sdk/contracts/storage.js';
import type { WithStorage } from './plugin-store.js';

/**
 * Plugin stores in a directory of this machine: where a host that names no storage backend (the
 * SDK's test kit, a single process) keeps `ctx.storage`. Keys are checked by the plugin store.
 */
export function directoryStorage(root: string): WithStorage {
  const file = (key: string) => path.join(root, ...key.split('/'));
  const storage = {
    async put(key: string, data: Buffer) {
      const target = file(key);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      // Written beside, then renamed: a reader sees the old object or the whole new one.
      const part = `${target}.${randomBytes(6).toString('hex')}.part`;
      await writeFile(part, data, { mode: 0o600 });
      await rename(part, target);
      return { key, size: data.length, modifiedAt: new Date() };
    },
    async get(key: string) {
      try {
        return await readFile(file(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new StorageNotFoundError(key);
        throw err;
      }
    },
    async delete(key: string) {
      try {
        await unlink(file(key));
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
  };
  return (fn) => fn(storage);
}
