import type { StorageProvider } from '../../../../core/sdk/index.js';

/** Deletes every stored file under `prefix` (a job's or an inbound fax's folder, on whichever storage plugin); how many were removed. */
export async function removeStoredPrefix(storage: StorageProvider, prefix: string): Promise<number> {
  let removed = 0;
  for (const entry of await storage.list(prefix)) if (await storage.delete(entry.key)) removed++;
  return removed;
}
