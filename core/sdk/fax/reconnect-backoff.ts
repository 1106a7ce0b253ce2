/** Exponential reconnect delays: initial, doubled per failure up to max, with ±20% jitter. */
export class ReconnectBackoff {
  private failures = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const delay = this.peek();
    this.failures++;
    return Math.round(delay * (0.8 + Math.random() * 0.4));
  }

  /** The nominal delay of the next attempt, without counting it. */
  peek(): number {
    return Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
  }

  reset(): void {
    this.failures = 0;
  }
}
