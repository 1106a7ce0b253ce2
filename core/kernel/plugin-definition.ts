import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { PluginDefinition } from '../sdk/index.js';
import { envMapFromManifest, settingsSchemaFromManifest, type Manifest } from '../manifest/index.js';
import { declarativeBlockOf, type DeclarativeBlock, type DeclarativeRuntimes } from './declarative-runtimes.js';
import { loadEntry, locateEntry, type EntryRoots, type PluginCode } from './entry-loader.js';
import type { ManifestFile } from './manifest-source.js';
import { settingsFromDescription, type EntryDescription } from './isolation/entry-description.js';
import { isolationOf, type IsolationMode } from './isolation/isolation-mode.js';
import { definePlugin } from '../sdk/plugin.js';

/**
 * How third-party code that will run isolated is described without importing it in the
 * gateway: the operator's mode per plugin, and a probe that loads the entry in an isolate.
 */
export interface IsolatedEntries {
  operatorMode(pluginId: string): IsolationMode | undefined;
  describe(pluginId: string, mode: 'process' | 'worker', code: PluginCode): Promise<EntryDescription>;
}

/**
 * A plugin's definition with everything derived from it, resolved once per manifest and code
 * content: the kernel, the settings editor and the generation factory all read this instead of
 * asking "entry or declarative?" themselves.
 */
export interface ResolvedPlugin {
  /** Changes when the manifest or any file of the plugin's folder changes. */
  key: string;
  /** The declarative block it runs on, or undefined for an entry (code) plugin. */
  block: DeclarativeBlock | undefined;
  definition: PluginDefinition;
  schema: z.ZodObject | undefined;
  envMap: Record<string, string>;
  /** Where the code is (entry plugins only). */
  code?: PluginCode;
  /**
   * Described by a probe isolate, never imported here: `definition` is a stand-in that cannot
   * start in-process, and the settings are parsed again by the plugin's own schema in its isolate.
   */
  described?: boolean;
}

/** The key a resolution would have now; cheap (hashes the folder, imports nothing). */
export interface LocatedPlugin {
  key: string;
  block: DeclarativeBlock | undefined;
  code?: PluginCode;
  /** Third-party code that runs isolated: described by a probe in this mode, not imported. */
  probe?: 'process' | 'worker';
}

export class DefinitionResolver {
  constructor(
    private readonly roots: EntryRoots,
    private readonly runtimes: DeclarativeRuntimes,
    private readonly isolated?: IsolatedEntries,
  ) {}

  private readonly describedLast = new Map<string, { key: string; resolved: Promise<ResolvedPlugin> }>();

  /** Finds the code (entry plugins) and the key; throws EntryRefusedError for refused code. */
  locate(file: ManifestFile, manifest: Manifest): LocatedPlugin {
    const block = declarativeBlockOf(manifest);
    if (block) return { key: file.hash, block };
    const code = locateEntry(file.path, (manifest as { entry: string }).entry, this.roots);
    const mode = this.isolated && !code.builtin ? isolationOf(manifest, code, this.isolated.operatorMode(manifest.id)) : 'in-process';
    // The key says how it is resolved, so a change of mode resolves (and restarts) it again.
    const key = createHash('sha256').update(file.hash).update(code.hash).update(mode === 'in-process' ? '' : 'described').digest('hex');
    return { key, block, code, ...(mode === 'in-process' ? {} : { probe: mode }) };
  }

  /** Resolves `located`, reusing `previous` when nothing changed. */
  async resolve(manifest: Manifest, located: LocatedPlugin, previous?: ResolvedPlugin): Promise<ResolvedPlugin> {
    if (previous && previous.key === located.key) return previous;
    if (located.block) {
      const factory = this.runtimes.get(located.block);
      if (!factory) throw new Error(`the "${located.block}" block is not supported by this host (no runtime registered)`);
      const definition = factory(manifest);
      return {
        key: located.key,
        block: located.block,
        definition,
        schema: definition.settings ?? settingsSchemaFromManifest(manifest.settings),
        envMap: (definition.env ?? envMapFromManifest(manifest.settings)) as Record<string, string>,
      };
    }
    if (located.probe && this.isolated) {
      // One probe per plugin and code: a disabled plugin's config view resolves on every read.
      const last = this.describedLast.get(manifest.id);
      if (last?.key === located.key) return last.resolved;
      const resolved = this.describeEntry(manifest, located, located.probe);
      this.describedLast.set(manifest.id, { key: located.key, resolved });
      resolved.catch(() => {
        if (this.describedLast.get(manifest.id)?.resolved === resolved) this.describedLast.delete(manifest.id);
      });
      return resolved;
    }
    const definition = await loadEntry(located.code!);
    return { key: located.key, block: undefined, definition, schema: definition.settings, envMap: (definition.env ?? {}) as Record<string, string>, code: located.code! };
  }

  private async describeEntry(manifest: Manifest, located: LocatedPlugin, mode: 'process' | 'worker'): Promise<ResolvedPlugin> {
    const { definition, schema, envMap } = describedDefinition(manifest.id, await this.isolated!.describe(manifest.id, mode, located.code!));
    return { key: located.key, block: undefined, definition, schema, envMap, code: located.code!, described: true };
  }
}

/** The stand-in definition of code that runs isolated: its described settings; it cannot start here. */
export function describedDefinition(pluginId: string, description: EntryDescription) {
  const { schema, envMap } = settingsFromDescription(description);
  const definition = definePlugin({
    ...(schema ? { settings: schema } : {}),
    env: envMap,
    start() {
      throw new Error(`plugin "${pluginId}" runs isolated; its code is not loaded in this process`);
    },
  });
  return { definition, schema, envMap };
}
