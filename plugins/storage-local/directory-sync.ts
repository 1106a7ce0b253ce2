import { syncDirectory } from 'switchboard/sdk';

interface DirectoryState {
  running?: Promise<void>;
  next?: Promise<void>;
}

/**
 * fsync of directories with group commit: a put that renamed its file into a directory must
 * wait for an fsync of that directory that *started after* its rename. Puts asking while one
 * fsync is running share the next one, so under load one fsync makes many puts durable instead
 * of each put paying its own.
 */
export class DirectorySync {
  private readonly dirs = new Map<string, DirectoryState>();

  constructor(private readonly fsync: (dir: string) => Promise<void> = syncDirectory) {}

  /** Resolves once an fsync of `dir` that began after this call has completed. */
  sync(dir: string): Promise<void> {
    let state = this.dirs.get(dir);
    if (!state) this.dirs.set(dir, (state = {}));
    const running = state.running;
    if (!running) return this.start(dir, state);
    // The running fsync may have begun before the caller's rename: wait for the next one.
    const s = state;
    s.next ??= running.then(
      () => this.startNext(dir, s),
      () => this.startNext(dir, s),
    );
    return s.next;
  }

  private startNext(dir: string, state: DirectoryState): Promise<void> {
    state.next = undefined;
    return this.start(dir, state);
  }

  private start(dir: string, state: DirectoryState): Promise<void> {
    const run: Promise<void> = this.fsync(dir).finally(() => {
      if (state.running === run) state.running = undefined;
      if (!state.running && !state.next) this.dirs.delete(dir);
    });
    state.running = run;
    return run;
  }
}
