import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { PluginDefinition } from '../sdk/index.js';
import { envMapFromManifest, settingsSchemaFromManifest, type Manifest } from '../manifest/index.js';
import { declarativeBlockOf, type DeclarativeBlock, type DeclarativeRuntimes } from './declarative-runtimes.js';
import { loadEntry, locateEntry, type EntryRoots, type PluginCode } from './entry-loader.js';
import type { ManifestFile } from './manifest-source.js';

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
}

/** The key a resolution would have now; cheap (hashes the folder, imports nothing). */
export interface LocatedPlugin {
  key: string;
  block: DeclarativeBlock | undefined;
  code?: PluginCode;
}

export class DefinitionResolver {
  constructor(
    private readonly roots: EntryRoots,
    private readonly runtimes: DeclarativeRuntimes,
  ) {}

  /** Finds the code (entry plugins) and the key; throws EntryRefusedError for refused code. */
  locate(file: ManifestFile, manifest: Manifest): LocatedPlugin {
    const block = declarativeBlockOf(manifest);
    if (block) return { key: file.hash, block };
    const code = locateEntry(file.path, (manifest as { entry: string }).entry, this.roots);
    return { key: createHash('sha256').update(file.hash).update(code.hash).digest('hex'), block, code };
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
    const definition = await loadEntry(located.code!);
    return { key: located.key, block: undefined, definition, schema: definition.settings, envMap: (definition.env ?? {}) as Record<string, string>, code: located.code! };
  }
}
