/**
 * Runs `task` again and again with a pause of `pauseMs()` after each run (read every time, so a
 * setting changed live applies to the next pause); runs never overlap. `stop()` waits for the run
 * under way and no run starts after it. A failed run is reported to `onError` and the loop goes on.
 */
export class RepeatingTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly pauseMs: () => number,
    private readonly task: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.task()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule();
        });
    }, this.pauseMs());
    // background work never keeps the process alive on its own
    this.timer.unref();
  }
}
