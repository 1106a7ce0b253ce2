import { watch, type FSWatcher } from 'chokidar';
import { isCodeFile, isIgnoredCodePath } from './code-fingerprint.js';
import path from 'node:path';

interface Watched {
  root: string;
  watcher: FSWatcher;
  ready: Promise<void>;
  timer?: NodeJS.Timeout;
}

/**
 * Watches each plugin's folder (node_modules and dot entries left out) and asks for a reload of
 * that plugin alone when a file in it changes, so an edited module starts a new generation.
 */
export class PluginCodeWatcher {
  private readonly watched = new Map<string, Watched>();
  private closed = false;

  constructor(
    private readonly onChange: (pluginId: string) => void,
    private readonly debounceMs = 50,
  ) {}

  /** Watches `root` for `pluginId` (replacing a previous folder); undefined stops watching. */
  set(pluginId: string, root: string | undefined): void {
    const current = this.watched.get(pluginId);
    if (current?.root === root || this.closed) return;
    if (current) {
      if (current.timer) clearTimeout(current.timer);
      void current.watcher.close();
      this.watched.delete(pluginId);
    }
    if (!root) return;
    const watcher = watch(root, {
      ignoreInitial: true,
      // An editor's half-written module is not imported.
      awaitWriteFinish: { stabilityThreshold: 120, pollInterval: 30 },
      ignored: (p: string) => p !== root && isIgnoredCodePath(path.relative(root, p)),
    });
    const entry: Watched = { root, watcher, ready: new Promise((resolve) => watcher.once('ready', () => resolve())) };
    watcher.on('all', (event: string, file: string) => {
      if ((event === 'add' || event === 'change' || event === 'unlink') && !isCodeFile(path.basename(file))) return;
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = setTimeout(() => this.onChange(pluginId), this.debounceMs);
    });
    watcher.on('error', () => {});
    this.watched.set(pluginId, entry);
  }

  /** Resolves when every watcher has finished its initial scan. */
  async ready(): Promise<void> {
    await Promise.all([...this.watched.values()].map((w) => w.ready));
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.watched.values()];
    this.watched.clear();
    for (const w of all) if (w.timer) clearTimeout(w.timer);
    await Promise.all(all.map((w) => w.watcher.close()));
  }
}
