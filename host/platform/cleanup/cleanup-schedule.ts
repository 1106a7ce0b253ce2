/** The clock and timers a schedule runs on; tests pass their own to step time without waiting. */
export interface ScheduleTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: ScheduleTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    // the schedule never keeps the process alive on its own
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Node's timers overflow above 2^31-1 ms (about 24.8 days) and then fire at once: longer waits are taken in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `task` every `intervalMs`, measured from `start()`: 90 minutes means every 90 minutes
 * (cron could only round it). Due times stay on that grid, so a slow run does not drift the
 * schedule; a due time missed while a run was still under way is skipped, not queued.
 */
export class IntervalSchedule {
  private handle: unknown;
  private dueAt = 0;
  private stopped = true;

  constructor(
    private intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly timers: ScheduleTimers = realTimers,
  ) {
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`the interval must be a positive number of milliseconds, not ${intervalMs}`);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.dueAt = this.timers.now() + this.intervalMs;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  /** A new interval (a setting changed live): the grid starts again from now. */
  reschedule(intervalMs: number): void {
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`the interval must be a positive number of milliseconds, not ${intervalMs}`);
    this.intervalMs = intervalMs;
    if (this.stopped) return;
    this.stop();
    this.start();
  }

  /** When the next run is due (epoch ms), for status views and tests. */
  nextDueAt(): number | undefined {
    return this.stopped ? undefined : this.dueAt;
  }

  private arm(): void {
    const wait = Math.min(Math.max(0, this.dueAt - this.timers.now()), MAX_TIMER_MS);
    this.handle = this.timers.setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.handle = undefined;
    if (this.stopped) return;
    const now = this.timers.now();
    if (now >= this.dueAt) {
      while (this.dueAt <= now) this.dueAt += this.intervalMs;
      // failures are the task's to report; the schedule keeps going
      this.task().catch(() => undefined);
    }
    this.arm();
  }
}
