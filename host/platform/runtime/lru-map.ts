/**
 * A map that keeps at most `limit` of weight (one per entry unless `weigh` says otherwise), the
 * least recently used entries out first. A Map's order is its insertion order, so reading an
 * entry moves it to the newest end and the oldest is the first key.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  private weight = 0;

  constructor(
    private readonly limit: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Adds or replaces `key`, then drops the least recently used entries past the limit. */
  set(key: K, value: V): void {
    const before = this.entries.get(key);
    if (before !== undefined) {
      this.entries.delete(key);
      this.weight -= this.weigh(before);
    }
    this.entries.set(key, value);
    this.weight += this.weigh(value);
    for (const [oldest, kept] of this.entries) {
      if (this.weight <= this.limit) break;
      this.entries.delete(oldest);
      this.weight -= this.weigh(kept);
    }
  }
}
