interface Waiter<R> {
  resolve(reply: R): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Commands written to a PBX session that await their reply: matched by id (AMI's ActionID) or,
 * for protocols that answer in order (ESL), oldest first. Each waiter has its own time limit.
 */
export class ReplyWaiters<R> {
  private readonly waiting = new Map<string, Waiter<R>>();
  private sequence = 0;

  /**
   * Waits for the reply to `key` (a fresh key when none is given: replies come in order).
   * After `timeoutMs` the waiter is dropped and rejected with `timeoutError()`, then `onTimeout`
   * runs (an in-order session drops its link: a late reply would be taken for the next one's).
   */
  wait(timeoutMs: number, timeoutError: () => Error, options: { key?: string; onTimeout?: () => void } = {}): Promise<R> {
    const key = options.key ?? `#${++this.sequence}`;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.waiting.get(key)?.timer !== timer) return;
        this.waiting.delete(key);
        reject(timeoutError());
        options.onTimeout?.();
      }, timeoutMs);
      this.waiting.set(key, { resolve, reject, timer });
    });
  }

  /** Settles the waiter of `key`; false when nothing waits for it. */
  settle(key: string, reply: R): boolean {
    const waiter = this.waiting.get(key);
    if (!waiter) return false;
    this.waiting.delete(key);
    clearTimeout(waiter.timer);
    waiter.resolve(reply);
    return true;
  }

  /** Settles the oldest waiter; false when nothing waits. */
  settleOldest(reply: R): boolean {
    const first = this.waiting.keys().next();
    return first.done ? false : this.settle(first.value, reply);
  }

  /** Fails every waiter: the session that would carry their replies is gone. */
  rejectAll(error: () => Error): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const waiter of all) {
      clearTimeout(waiter.timer);
      waiter.reject(error());
    }
  }

  get size(): number {
    return this.waiting.size;
  }
}
