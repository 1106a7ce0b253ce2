import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isCompleteJson, WriteSettler } from './write-settler.js';

export interface ManifestWatcherOptions {
  /** Coalesces the files of one burst (several manifests copied at once) into one callback. */
  debounceMs?: number;
  /** How long a file that does not parse (still being written, or malformed) must hold still. */
  stableMs?: number;
  /** How long a file that parses must hold still. */
  completeMs?: number;
}

/**
 * Watches the manifest search path (`<dir>/*.json`, `<dir>/<plugin>/manifest.json`) and the
 * plugin config store, and calls back once a changed file has settled (see WriteSettler): a
 * manifest renamed into place parses, so it is reported at once; one still being written is
 * reported when it parses or has stopped changing. The kernel's reload queue coalesces further.
 *
 * chokidar finds the files and folders; its write-finish wait is not used, and its raw events
 * are listened to as well, because it drops a second 'change' of a path within 50 ms (a quick
 * second save, the last chunk of a slow write).
 *
 * Files are watched through their directory, filtered to the file: chokidar stops reporting
 * other paths when it is handed a file that does not exist yet (the config store before its
 * first write).
 */
export class ManifestWatcher {
  private readonly watchers: FSWatcher[] = [];
  private readonly settler: WriteSettler;
  private readonly dirs: string[];
  private readonly files: Set<string>;
  private timer: NodeJS.Timeout | undefined;

  constructor(dirs: string[], files: string[], onChange: () => void, options: ManifestWatcherOptions = {}) {
    const debounceMs = options.debounceMs ?? 5;
    this.dirs = dirs.map((d) => path.resolve(d));
    this.files = new Set(files.map((f) => path.resolve(f)));
    this.settler = new WriteSettler({
      isComplete: isCompleteJson,
      ...(options.stableMs !== undefined ? { stableMs: options.stableMs } : {}),
      ...(options.completeMs !== undefined ? { completeMs: options.completeMs } : {}),
      onSettled: () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(onChange, debounceMs);
      },
    });
    const common = { ignoreInitial: true };
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
      // A folder's event may be the only news of the manifest inside it (a plugin folder moved in).
      w.on('all', (_event: string, p: string) => this.noticeAny(p, path.join(p, 'manifest.json')));
      // fs.watch names the changed entry relative to the watched folder, or the watched file itself.
      w.on('raw', (_event, name: string | null, details: unknown) => {
        const watched = (details as { watchedPath?: string } | undefined)?.watchedPath;
        if (watched) this.noticeAny(watched, ...(name ? [path.join(watched, name)] : []));
      });
      w.on('error', () => {});
    }
  }

  async ready(): Promise<void> {
    await Promise.all(this.watchers.map((w) => new Promise<void>((resolve) => w.once('ready', () => resolve()))));
  }

  /** True while `file` changed and has not settled: a scan now must not read it. */
  settling(file: string): boolean {
    return this.settler.isSettling(path.resolve(file));
  }

  /**
   * Whether a scan may take `text` (undefined: the file is gone) as the content of `file`,
   * which changed since the last scan: yes when it parses, else only once it held still.
   */
  admits(file: string, text: string | undefined): boolean {
    const full = path.resolve(file);
    if (this.settler.isSettling(full)) return false;
    if (text !== undefined && isCompleteJson(text)) return true;
    return this.settler.heldStill(full);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.settler.close();
    await Promise.all(this.watchers.map((w) => w.close()));
  }

  private noticeAny(...candidates: string[]): void {
    for (const candidate of candidates) {
      const full = path.resolve(candidate);
      if (this.isWatchedFile(full)) this.settler.notice(full);
    }
  }

  private isWatchedFile(full: string): boolean {
    if (this.files.has(full)) return true;
    for (const dir of this.dirs) {
      const parts = path.relative(dir, full).split(path.sep);
      if (parts[0] === '..' || parts[0] === '' || parts.some((p) => p.startsWith('.'))) continue;
      if (parts.length === 1 && parts[0]!.endsWith('.json')) return true;
      if (parts.length === 2 && parts[1] === 'manifest.json') return true;
    }
    return false;
  }
}
