import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/**
 * Watches the manifest search path and the plugin config store. Events are debounced into one
 * callback; the kernel's reload queue coalesces further.
 *
 * Files are watched through their directory, filtered to the file: chokidar stops reporting
 * other paths when it is handed a file that does not exist yet (the config store before its
 * first write).
 */
export class ManifestWatcher {
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(dirs: string[], files: string[], onChange: () => void, debounceMs = 50) {
    const fire = () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(onChange, debounceMs);
    };
    // Write-finish detection: a manifest half-written by an editor is not read.
    const common = { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 120, pollInterval: 30 } };
    this.watchers.push(
      watch(dirs, {
        ...common,
        depth: 1,
        ignored: (p: string) => /(^|[/\\])\.[^/\\]*\.tmp$/.test(p) || p.endsWith('~'),
      }),
    );
    for (const file of files) {
      const dir = path.dirname(file);
      mkdirSync(dir, { recursive: true });
      this.watchers.push(watch(dir, { ...common, depth: 0, ignored: (p: string) => p !== dir && p !== file }));
    }
    for (const w of this.watchers) {
      w.on('all', fire);
      w.on('error', () => {});
    }
  }

  async ready(): Promise<void> {
    await Promise.all(this.watchers.map((w) => new Promise<void>((resolve) => w.once('ready', () => resolve()))));
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(this.watchers.map((w) => w.close()));
  }
}
