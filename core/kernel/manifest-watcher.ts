import { watch, type FSWatcher } from 'chokidar';

/**
 * Watches the manifest search path and the plugin config store. Events are debounced into one
 * callback; the kernel's reload queue coalesces further.
 */
export class ManifestWatcher {
  private readonly watcher: FSWatcher;
  private timer: NodeJS.Timeout | undefined;

  constructor(paths: string[], onChange: () => void, debounceMs = 50) {
    this.watcher = watch(paths, {
      ignoreInitial: true,
      depth: 1,
      // Write-finish detection: a manifest half-written by an editor is not read.
      awaitWriteFinish: { stabilityThreshold: 120, pollInterval: 30 },
      ignored: (p: string) => /(^|[/\\])\.[^/\\]*\.tmp$/.test(p) || p.endsWith('~'),
    });
    this.watcher.on('all', () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(onChange, debounceMs);
    });
    this.watcher.on('error', () => {});
  }

  ready(): Promise<void> {
    return new Promise((resolve) => this.watcher.once('ready', () => resolve()));
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.watcher.close();
  }
}
