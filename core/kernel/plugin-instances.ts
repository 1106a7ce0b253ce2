import { isDeepStrictEqual } from 'node:util';
import { isPluginId, PLUGIN_ID_RULE } from '../manifest/index.js';
import type { OutboundConnectOptions } from './egress.js';

/** One instance of a manifest the host wants running: its own plugin id and settings. */
export interface PluginInstanceSpec {
  /** Its plugin id, unique among plugins (e.g. `<manifest id>-<hash of its settings>`). */
  id: string;
  /** Its settings, given by the host: never written to the plugin config store. */
  settings: Record<string, unknown>;
  /**
   * Who chose the settings: `env`, the operator's environment (URLs reached as given), or
   * `config`, the host's configuration written at run time (URLs pass the outbound guard).
   */
  source: 'env' | 'config';
}

/** What every instance of one manifest shares. */
export interface InstanceSetOptions {
  /** TLS and timeouts of the instances' outbound connections (extra CAs), read per request. */
  connect?: () => OutboundConnectOptions;
  /** Where an operator changes these instances, named when a settings write is refused (e.g. `WEBHOOK_TARGETS`). */
  origin?: string;
}

/** An instance as the kernel keeps it: the manifest it runs and the host's declaration. */
export interface DeclaredInstance extends PluginInstanceSpec, InstanceSetOptions {
  /** The id of the manifest it is an instance of. */
  of: string;
}

/** How a generation of an instance starts besides its settings: their source and its connections. */
export interface InstanceRunInputs {
  storedSource: 'env' | 'config';
  connect: () => OutboundConnectOptions;
}

/**
 * The instances the host declared, by manifest: the desired set the reconciler brings the
 * records to (started, reloaded when their settings change, stopped when left out).
 */
export class PluginInstances {
  private readonly sets = new Map<string, Map<string, DeclaredInstance>>();

  /**
   * Replaces the instances of `manifestId`; returns whether anything changed. Throws a
   * TypeError for a bad or repeated id (a host mistake, not an operator's).
   */
  set(manifestId: string, specs: readonly PluginInstanceSpec[], options: InstanceSetOptions = {}): boolean {
    const next = new Map<string, DeclaredInstance>();
    for (const spec of specs) {
      if (!isPluginId(spec.id) || spec.id === manifestId) throw new TypeError(`instance id "${spec.id}" of ${manifestId}: ${PLUGIN_ID_RULE}, other than the manifest's own`);
      const owner = next.has(spec.id) ? manifestId : this.ownerOf(spec.id, manifestId);
      if (owner) throw new TypeError(`instance id "${spec.id}" is declared twice (already an instance of ${owner})`);
      next.set(spec.id, { ...options, of: manifestId, id: spec.id, settings: { ...spec.settings }, source: spec.source });
    }
    const previous = this.sets.get(manifestId) ?? new Map<string, DeclaredInstance>();
    if (next.size) this.sets.set(manifestId, next);
    else this.sets.delete(manifestId);
    return previous.size !== next.size || [...next.values()].some((i) => !isDeepStrictEqual(settingsOf(previous.get(i.id)), settingsOf(i)));
  }

  get(id: string): DeclaredInstance | undefined {
    for (const set of this.sets.values()) {
      const found = set.get(id);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * How generations of a plugin start when it is an instance: the source of its settings, and its
   * connections (looked up live, so a new declaration applies at once). Undefined for any other plugin.
   */
  runInputs(record: { id: string; instanceOf?: string }): InstanceRunInputs | undefined {
    const declared = this.get(record.id);
    if (!declared || declared.of !== record.instanceOf) return undefined;
    return { storedSource: declared.source, connect: () => this.get(record.id)?.connect?.() ?? {} };
  }

  /** The declared instances of `manifestId`, in declaration order. */
  of(manifestId: string): DeclaredInstance[] {
    return [...(this.sets.get(manifestId)?.values() ?? [])];
  }

  /** Every manifest that has instances declared. */
  manifests(): string[] {
    return [...this.sets.keys()];
  }

  private ownerOf(id: string, except: string): string | undefined {
    for (const [manifestId, set] of this.sets) if (manifestId !== except && set.has(id)) return manifestId;
    return undefined;
  }
}

function settingsOf(instance: DeclaredInstance | undefined): unknown {
  return instance && { settings: instance.settings, source: instance.source };
}
