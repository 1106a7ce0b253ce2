/** The clock and timers a recurring task runs on; tests pass their own to step time without waiting. */
export interface ScheduleTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: ScheduleTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    // background work never keeps the process alive on its own
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Node's timers overflow above 2^31-1 ms (about 24.8 days) and then fire at once: longer waits are taken in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When the next run is due.
 * - `pauseMs`: that long after the previous run ended, read after every run (a setting changed
 *   live applies to the next pause). The first run comes one pause after `start()`.
 * - `everyMs`: on a grid from `start()` (a cleanup interval of 90 minutes means every 90 minutes,
 *   which a cron expression could only round; a slow run does not drift it), read at `start()`
 *   and `reschedule()`. A due time that passes while a run is under way is skipped, not queued;
 *   due times missed while the process slept make one run.
 */
export type Cadence = { pauseMs: () => number } | { everyMs: () => number };

export interface RecurringTaskOptions {
  cadence: Cadence;
  task: () => Promise<unknown>;
  /** A failed run (a rejection or a throw) is reported here; the loop goes on. */
  onError: (err: unknown) => void;
  timers?: ScheduleTimers;
}

/**
 * The one "run again later" loop of the host: runs never overlap, `wake()` runs now (wakes during
 * a run make one more run after it), `stop()` waits for the run under way and nothing starts
 * after it. Work that must run on one instance of a cluster passes a leased task,
 * `leases.exclusive(name, task)`: leasing wraps the task, so the lease renewal runs on this loop too.
 */
export class RecurringTask {
  private readonly timers: ScheduleTimers;
  private handle: unknown;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** The next scheduled run (epoch ms of the timers' clock). */
  private dueAt = 0;
  /** The grid's interval (everyMs), read at start and reschedule. */
  private intervalMs = 0;
  /** A wake asked for a run now (while idle) or right after the run under way. */
  private woken = false;

  constructor(private readonly options: RecurringTaskOptions) {
    this.timers = options.timers ?? realTimers;
  }

  start(): void {
    if (!this.stopped) return;
    this.dueAt = this.timers.now() + this.firstWait();
    this.stopped = false;
    this.arm();
  }

  /** Runs now; during a run, once more right after it (any number of wakes make one run). */
  wake(): void {
    if (this.stopped) return;
    this.woken = true;
    this.arm();
  }

  /** The interval or pause changed (a setting changed live): a grid starts again from now, a pause under way restarts. */
  reschedule(): void {
    if (this.stopped) return;
    this.dueAt = this.timers.now() + this.firstWait();
    this.arm();
  }

  /** No run starts after this; resolves once the run under way (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.woken = false;
    this.disarm();
    await this.running;
  }

  /** When the next run is due (epoch ms), for status views and tests; undefined when stopped. */
  nextDueAt(): number | undefined {
    return this.stopped ? undefined : this.dueAt;
  }

  private firstWait(): number {
    if ('pauseMs' in this.options.cadence) return this.options.cadence.pauseMs();
    const every = this.options.cadence.everyMs();
    if (!Number.isFinite(every) || every <= 0) throw new RangeError(`the interval must be a positive number of milliseconds, not ${every}`);
    this.intervalMs = every;
    return every;
  }

  private disarm(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  /** One timer for the next run; none while a run is under way (its end arms the next). */
  private arm(): void {
    this.disarm();
    if (this.stopped || this.running) return;
    const wait = this.woken ? 0 : Math.min(Math.max(0, this.dueAt - this.timers.now()), MAX_TIMER_MS);
    this.handle = this.timers.setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.handle = undefined;
    if (this.stopped) return;
    if (this.woken || this.timers.now() >= this.dueAt) this.run();
    else this.arm();
  }

  private run(): void {
    this.woken = false;
    // The task starts on a microtask, after `running` is set: a wake from its first steps waits for it.
    this.running = Promise.resolve()
      .then(() => this.options.task())
      .then(
        () => undefined,
        (err: unknown) => this.options.onError(err),
      )
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        const now = this.timers.now();
        if ('pauseMs' in this.options.cadence) this.dueAt = now + this.options.cadence.pauseMs();
        else while (this.dueAt <= now) this.dueAt += this.intervalMs;
        this.arm();
      });
  }
}
