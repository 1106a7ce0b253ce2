import { mkdirSync, watch as fsWatch, type FSWatcher as FsWatcher } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isCodeFile } from './code-fingerprint.js';
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
 * Watches the manifest search path and the plugin config store, and calls back (the kernel
 * rescans) once a changed file has settled (see WriteSettler): a manifest renamed into place
 * parses and is a new file, so it is reported at once; one rewritten in place is reported when
 * it parses and held still briefly, or when it has stopped changing. The kernel's reload queue
 * coalesces further.
 *
 * What is watched on the search path: `<dir>/*.json`, plugin folders `<dir>/<plugin>/` coming
 * and going, their `manifest.json` and the code files at their top (which also brings in the fix
 * of a plugin whose entry was refused: its folder has no code watcher).
 *
 * chokidar finds the files and folders; its write-finish wait is not used, and its raw events
 * are listened to as well, because it drops a second 'change' of a path within 50 ms (a quick
 * second save, the last chunk of a slow write).
 *
 * The config store is watched through its directory (it may not exist before its first write),
 * with fs.watch filtered to the file's name.
 */
export class ManifestWatcher {
  private readonly watchers: FSWatcher[] = [];
  private readonly storeWatchers: FsWatcher[] = [];
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

    const searchPath = watch(dirs, {
      ignoreInitial: true,
      depth: 1,
      ignored: (p: string) => /(^|[/\\])\.[^/\\]*\.tmp$/.test(p) || p.endsWith('~'),
    });
    searchPath.on('all', (event: string, p: string) => {
      const full = path.resolve(p);
      if ((event === 'addDir' || event === 'unlinkDir') && this.depthOf(full) === 1) this.settler.notice(full);
      // A folder's event may be the only news of the manifest inside it (a plugin folder moved in).
      this.noticeIfWatched(full);
      this.noticeIfWatched(path.join(full, 'manifest.json'));
    });
    // fs.watch names the changed entry relative to the watched folder, or the watched file itself.
    searchPath.on('raw', (_event, name: string | null, details: unknown) => {
      const watched = (details as { watchedPath?: string } | undefined)?.watchedPath;
      if (!name || !watched) return;
      this.noticeIfWatched(path.resolve(watched, name));
      this.noticeIfWatched(path.resolve(watched));
    });
    this.watchers.push(searchPath);

    for (const file of this.files) {
      const dir = path.dirname(file);
      const name = path.basename(file);
      mkdirSync(dir, { recursive: true });
      // The store's folder is usually DATA_DIR, busy with database writes (every commit touches
      // the -wal file): a plain fs.watch filtered by name costs nothing per event, where chokidar
      // would stat each changed path. Only the store's own name counts.
      const store = fsWatch(dir, (_event, changed) => {
        if (changed === name) this.settler.notice(file);
      });
      store.on('error', () => {});
      this.storeWatchers.push(store);
    }
    for (const w of this.watchers) w.on('error', () => {});
  }

  async ready(): Promise<void> {
    await Promise.all(this.watchers.map((w) => new Promise<void>((resolve) => w.once('ready', () => resolve()))));
    // What is there now is what the first change is compared with (renamed into place or not).
    const found = this.watchers.flatMap((w) => Object.entries(w.getWatched()).flatMap(([dir, names]) => names.map((name) => path.resolve(dir, name))));
    this.settler.remember([...this.files, ...found.filter((full) => this.watches(full))]);
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
    for (const w of this.storeWatchers) w.close();
    await Promise.all(this.watchers.map((w) => w.close()));
  }

  private noticeIfWatched(full: string): void {
    if (this.watches(full)) this.settler.notice(full);
  }

  /** A manifest (`<dir>/*.json`, `<dir>/<plugin>/manifest.json`) or a code file at a plugin folder's top. */
  private watches(full: string): boolean {
    const parts = this.partsOf(full);
    if (!parts) return false;
    const name = parts[parts.length - 1]!;
    return (parts.length === 1 && name.endsWith('.json')) || (parts.length === 2 && (name === 'manifest.json' || isCodeFile(name)));
  }

  private depthOf(full: string): number {
    return this.partsOf(full)?.length ?? 0;
  }

  /** `full` relative to the search directory holding it, split; undefined outside them. */
  private partsOf(full: string): string[] | undefined {
    for (const dir of this.dirs) {
      const parts = path.relative(dir, full).split(path.sep);
      if (parts[0] === '' || parts.some((p) => p.startsWith('.'))) continue;
      return parts;
    }
    return undefined;
  }
}
