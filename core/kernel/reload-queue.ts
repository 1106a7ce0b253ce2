/**
 * One serial queue for every reload. A key asked for again while it waits is coalesced into
 * the waiting run; a key asked for while it runs is queued once more, because what it read
 * may already be stale.
 */
export class ReloadQueue {
  private readonly pending = new Map<string, { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void }>();
  private running = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly work: (key: string) => Promise<void>) {}

  request(key: string): Promise<void> {
    const waiting = this.pending.get(key);
    if (waiting) return waiting.promise;
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {});
    this.pending.set(key, { promise, resolve, reject });
    void this.drain();
    return promise;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves when nothing is waiting or running. */
  idle(): Promise<void> {
    if (!this.running && this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.pending.size) {
        const [key, entry] = this.pending.entries().next().value as [string, { resolve: () => void; reject: (e: unknown) => void }];
        this.pending.delete(key);
        try {
          await this.work(key);
          entry.resolve();
        } catch (err) {
          entry.reject(err);
        }
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
