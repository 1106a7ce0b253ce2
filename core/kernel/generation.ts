import type { HealthResult, PluginInstance, ProviderKind, ProviderMap } from '../sdk/index.js';
import type { StartedGeneration } from './plugin-runner.js';

export type GenerationState = 'active' | 'draining' | 'stopped';

/** A request's hold on the generation it started with. Release exactly once. */
export interface Lease<K extends ProviderKind = ProviderKind> {
  readonly pluginId: string;
  readonly generation: number;
  readonly provider: ProviderMap[K];
  release(): void;
}

/**
 * One started build of a plugin. Requests lease it; once replaced it drains until its
 * leases reach zero (or a deadline passes) and is then stopped.
 */
export class Generation {
  state: GenerationState = 'active';
  private leases = 0;
  private zeroWaiters: Array<() => void> = [];

  constructor(
    readonly pluginId: string,
    readonly number: number,
    readonly run: StartedGeneration,
    readonly startedAt = new Date(),
  ) {}

  get instance(): PluginInstance {
    return this.run.instance;
  }

  get activeLeases(): number {
    return this.leases;
  }

  provides(kind: ProviderKind): boolean {
    return this.instance.providers[kind] !== undefined;
  }

  acquire<K extends ProviderKind>(kind: K): Lease<K> {
    const provider = this.instance.providers[kind];
    if (!provider) throw new Error(`${this.pluginId} generation ${this.number} provides no ${kind}`);
    this.leases++;
    let released = false;
    return {
      pluginId: this.pluginId,
      generation: this.number,
      provider: provider as ProviderMap[K],
      release: () => {
        if (released) return;
        released = true;
        this.leases--;
        if (this.leases === 0) {
          const waiters = this.zeroWaiters;
          this.zeroWaiters = [];
          for (const w of waiters) w();
        }
      },
    };
  }

  /** Resolves when no lease is held, or after `deadlineMs`; true when drained cleanly. */
  drained(deadlineMs: number): Promise<boolean> {
    if (this.leases === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), deadlineMs);
      timer.unref?.();
      this.zeroWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async health(timeoutMs: number): Promise<HealthResult> {
    if (!this.instance.health) return { ok: true, checked: 'shape', detail: 'no health check; started' };
    try {
      return { checked: 'connection', ...(await withTimeout(Promise.resolve(this.instance.health()), timeoutMs, 'health check')) };
    } catch (err) {
      return { ok: false, checked: 'connection', detail: (err as Error).message };
    }
  }
}

export class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
    timer.unref?.();
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
