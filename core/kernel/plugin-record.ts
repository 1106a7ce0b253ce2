import type { IsolationMode } from './isolation/isolation-mode.js';
import type { HealthResult } from '../sdk/index.js';
import type { Manifest, ManifestDiagnostic } from '../manifest/index.js';
import type { Generation } from './generation.js';
import type { ManifestFile } from './manifest-source.js';
import type { ResolvedPlugin } from './plugin-definition.js';
import type { SettingSource } from './settings-resolver.js';
import type { KernelEvents } from './kernel-events.js';

export type PluginState =
  | 'discovered'
  | 'validated'
  | 'rejected'
  | 'starting'
  | 'active'
  | 'retrying'
  | 'needs-config'
  | 'failed'
  | 'draining'
  | 'stopped';

/** Everything the kernel knows of one plugin id. */
export interface PluginRecord {
  id: string;
  /** For a kernel-managed instance: the id of the manifest it runs (its settings come from the host). */
  instanceOf?: string;
  file?: ManifestFile;
  manifest?: Manifest;
  /** The manifest's own diagnostics (from the last scan). */
  diagnostics: ManifestDiagnostic[];
  /** What loading its code found (entry outside the folder, a bundled SDK copy). */
  loadDiagnostics: ManifestDiagnostic[];
  state: PluginState;
  active?: Generation;
  draining: Set<Generation>;
  counter: number;
  lastError?: string;
  health?: HealthResult & { checkedAt: string };
  settingSources: Record<string, SettingSource>;
  /** The definition, settings schema and env map, resolved once per manifest and code content. */
  resolved?: ResolvedPlugin;
  /** What the active generation was built from; an equal fingerprint needs no reload. */
  fingerprint?: string;
  /** The fingerprint of the last start that failed; the same inputs are not retried until they change. */
  failedFingerprint?: string;
  retry?: { attempt: number; timer?: NodeJS.Timeout };
  /** Crashes of isolated generations in a row: the restart backoff's attempt. */
  crashes?: number;
  /** Where its last generation ran (kept while it is down), and its crash restarts so far. */
  isolation?: { mode: IsolationMode; restarts: number; lastFailure?: string };
}

/** The kernel's records by plugin id; state changes go through here so they are announced. */
export class PluginRecords {
  private readonly byId = new Map<string, PluginRecord>();

  constructor(readonly events: KernelEvents) {}

  get(id: string): PluginRecord | undefined {
    return this.byId.get(id);
  }

  /** The record of `id`, created as `discovered` when new. */
  ensure(id: string): PluginRecord {
    let record = this.byId.get(id);
    if (!record) {
      record = { id, diagnostics: [], loadDiagnostics: [], state: 'discovered', draining: new Set(), counter: 0, settingSources: {} };
      this.byId.set(id, record);
    }
    return record;
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  all(): PluginRecord[] {
    return [...this.byId.values()];
  }

  setState(record: PluginRecord, state: PluginState): void {
    if (record.state === state) return;
    record.state = state;
    this.events.emit('state', { pluginId: record.id, state });
  }
}
