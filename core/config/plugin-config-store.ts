import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file.js';

export const PluginConfigEntry = z
  .object({
    enabled: z.boolean().default(true),
    settings: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type PluginConfigEntry = z.infer<typeof PluginConfigEntry>;

const StoreFile = z.record(z.string(), PluginConfigEntry);

/**
 * Per-plugin `{enabled, settings}` at SERVICE_CONFIG_PATH. The file is the source of truth:
 * it is re-read on every load so an edit by hand (or by another instance) is seen by reloads.
 * Writes are serialized and atomic.
 */
export class PluginConfigStore {
  private entries: Record<string, PluginConfigEntry> = {};
  private problem: string | undefined;
  private writing: Promise<unknown> = Promise.resolve();
  private coordinator: <T>(write: () => Promise<T>) => Promise<T> = (write) => write();

  constructor(readonly file: string) {
    this.load();
  }

  /** Re-reads the file; a broken file keeps the last good entries and reports the problem. */
  load(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.entries = {};
        this.problem = undefined;
        return;
      }
      this.problem = `cannot read ${path.basename(this.file)}: ${(err as Error).message}`;
      return;
    }
    try {
      const parsed = StoreFile.safeParse(JSON.parse(text));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        this.problem = `${path.basename(this.file)}: ${issue.path.join('.')}: ${issue.message}`;
        return;
      }
      this.entries = parsed.data;
      this.problem = undefined;
    } catch (err) {
      this.problem = `${path.basename(this.file)} is not valid JSON: ${(err as Error).message}`;
    }
  }

  problems(): string[] {
    return this.problem ? [this.problem] : [];
  }

  get(id: string): PluginConfigEntry {
    const entry = Object.hasOwn(this.entries, id) ? this.entries[id] : undefined;
    return { enabled: entry?.enabled ?? true, settings: { ...(entry?.settings ?? {}) } };
  }

  has(id: string): boolean {
    return Object.hasOwn(this.entries, id);
  }

  /**
   * Wraps every write of the file: the host shares it between the instances of a cluster (it
   * brings the file up to the cluster's copy first and publishes the result). Default: the write alone.
   */
  coordinateWrites(coordinator: <T>(write: () => Promise<T>) => Promise<T>): void {
    this.coordinator = coordinator;
  }

  /** Replaces one plugin's entry and writes the file atomically. */
  async put(id: string, entry: PluginConfigEntry): Promise<void> {
    const run = this.writing.then(() => this.coordinator(async () => {
      this.load();
      const next = { ...this.entries, [id]: PluginConfigEntry.parse(entry) };
      // Settings hold plugin secrets in clear: 0600 in a 0700 directory, whatever the umask.
      await writeFileAtomic(this.file, JSON.stringify(next, null, 2) + '\n', { private: true });
      this.entries = next;
    }));
    this.writing = run.catch(() => {});
    return run;
  }
}
