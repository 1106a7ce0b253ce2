import { faxDirectionsOf, type FaxDirection, type HealthResult, type ProviderKind } from '../sdk/index.js';
import type { ManifestDiagnostic } from '../manifest/index.js';
import type { PluginConfigStore } from '../config/plugin-config-store.js';
import { declarativeBlockOf } from './declarative-runtimes.js';
import type { PluginRecord, PluginRecords, PluginState } from './plugin-record.js';
import type { IsolationMode } from './isolation/isolation-mode.js';

export interface PluginView {
  id: string;
  /** For a kernel-managed instance: the manifest it is an instance of; null for a plugin of its own. */
  instance_of: string | null;
  name: string | null;
  version: string | null;
  description: string | null;
  kinds: ProviderKind[];
  state: PluginState;
  enabled: boolean;
  generation: number | null;
  generations: Array<{ number: number; state: string; leases: number; started_at: string }>;
  health: (HealthResult & { checkedAt: string }) | null;
  last_error: string | null;
  diagnostics: ManifestDiagnostic[];
  manifest_path: string | null;
  declarative: boolean;
  maturity: string | null;
  /** Fax providers: the directions the serving generation takes (an inbound-only start is active too); null otherwise. */
  directions: FaxDirection[] | null;
  /** Where its code runs and how that went; null before a first start. */
  isolation: IsolationView | null;
}

export interface IsolationView {
  mode: IsolationMode;
  /** The child process (process mode) or worker thread (worker mode) while a generation runs. */
  pid: number | null;
  thread_id: number | null;
  /** Restarts after a crash or a limit, since the gateway started. */
  restarts: number;
  last_failure: string | null;
}

/** The plugins as the HTTP surface shows them (GET /plugins, admin views). */
export class PluginViews {
  constructor(
    private readonly records: PluginRecords,
    private readonly configStore: PluginConfigStore,
  ) {}

  list(): PluginView[] {
    return this.records
      .all()
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((r) => this.view(r));
  }

  get(id: string): PluginView | undefined {
    const r = this.records.get(id);
    return r ? this.view(r) : undefined;
  }

  private view(r: PluginRecord): PluginView {
    const m = r.manifest;
    const gens = [...(r.active ? [r.active] : []), ...r.draining];
    return {
      id: r.id,
      instance_of: r.instanceOf ?? null,
      name: m?.name ?? null,
      version: m?.version ?? null,
      description: m?.description ?? null,
      kinds: (m?.provides ?? []).map((p) => p.kind as ProviderKind),
      state: r.state,
      // An instance runs while the host declares it; the config store has no say.
      enabled: r.instanceOf ? true : this.configStore.get(r.id).enabled,
      generation: r.active?.number ?? null,
      generations: gens.map((g) => ({ number: g.number, state: g.state, leases: g.activeLeases, started_at: g.startedAt.toISOString() })),
      health: r.health ?? null,
      last_error: r.lastError ?? null,
      diagnostics: [...r.diagnostics, ...r.loadDiagnostics],
      manifest_path: r.file?.path ?? null,
      declarative: !!m && declarativeBlockOf(m) !== undefined,
      maturity: m?.maturity ?? null,
      directions: directionsOf(r),
      isolation: isolationOf(r),
    };
  }
}

function isolationOf(r: PluginRecord): IsolationView | null {
  if (!r.isolation) return null;
  const isolate = r.active?.run.isolate;
  return { mode: r.isolation.mode, pid: isolate?.pid ?? null, thread_id: isolate?.threadId ?? null, restarts: r.isolation.restarts, last_failure: r.isolation.lastFailure ?? null };
}

function directionsOf(r: PluginRecord): FaxDirection[] | null {
  const fax = r.active?.instance.providers.fax;
  return fax ? faxDirectionsOf(fax) : null;
}
