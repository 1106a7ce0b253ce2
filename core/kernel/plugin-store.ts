import { assertStorageKey, StorageNotFoundError, type StorageProvider } from '../sdk/contracts/storage.js';
import type { PluginStore } from '../sdk/plugin.js';

/** Runs `fn` on the storage backend the plugin stores go to (the host's STORAGE_BACKEND). */
export type WithStorage = <T>(fn: (storage: Pick<StorageProvider, 'put' | 'get' | 'delete'>) => Promise<T>) => Promise<T>;

/**
 * `ctx.storage` of a plugin: its keys under `plugins/<pluginId>/` of the storage `use` reaches,
 * so a plugin can neither read nor write another's objects or the host's artifacts.
 */
export function pluginStore(pluginId: string, use: WithStorage): PluginStore {
  const full = (key: string) => {
    assertStorageKey(key);
    return `plugins/${pluginId}/${key}`;
  };
  return {
    async put(key, data) {
      const k = full(key);
      await use((s) => s.put(k, Buffer.isBuffer(data) ? data : Buffer.from(data)));
    },
    async get(key) {
      const k = full(key);
      return use(async (s) => {
        try {
          return await s.get(k);
        } catch (err) {
          if (err instanceof StorageNotFoundError || (err as Error)?.name === 'StorageNotFoundError') return null;
          throw err;
        }
      });
    },
    async delete(key) {
      const k = full(key);
      return use((s) => s.delete(k));
    },
  };
}
