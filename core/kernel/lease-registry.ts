import type { ProviderKind } from '../sdk/index.js';
import type { Lease } from './generation.js';
import type { PluginRecords, PluginState } from './plugin-record.js';

export class PluginNotAvailableError extends Error {
  constructor(
    readonly pluginId: string,
    readonly kind: string,
    readonly state: PluginState | 'unknown',
  ) {
    super(state === 'unknown' ? `no plugin "${pluginId}" is installed` : `plugin "${pluginId}" is not active (state: ${state}) for ${kind}`);
    this.name = 'PluginNotAvailableError';
  }
}

/** Hands out leases on active generations and answers "who can serve this kind now". */
export class LeaseRegistry {
  constructor(private readonly records: PluginRecords) {}

  /** A lease on the active generation of `pluginId` for `kind`. Release it when done. */
  lease<K extends ProviderKind>(kind: K, pluginId: string): Lease<K> {
    const record = this.records.get(pluginId);
    if (!record) throw new PluginNotAvailableError(pluginId, kind, 'unknown');
    const gen = record.active;
    if (!gen || !gen.provides(kind)) throw new PluginNotAvailableError(pluginId, kind, record.state);
    return gen.acquire(kind);
  }

  /** Runs `fn` with the provider of the active generation, holding a lease throughout. */
  async withProvider<K extends ProviderKind, T>(kind: K, pluginId: string, fn: (provider: Lease<K>['provider'], lease: Lease<K>) => Promise<T>): Promise<T> {
    const lease = this.lease(kind, pluginId);
    try {
      return await fn(lease.provider, lease);
    } finally {
      lease.release();
    }
  }

  isActive(kind: ProviderKind, pluginId: string): boolean {
    return !!this.records.get(pluginId)?.active?.provides(kind);
  }

  stateOf(pluginId: string): PluginState | 'unknown' {
    return this.records.get(pluginId)?.state ?? 'unknown';
  }

  providersOf(kind: ProviderKind): string[] {
    return this.records
      .all()
      .filter((r) => r.active?.provides(kind))
      .map((r) => r.id);
  }
}
