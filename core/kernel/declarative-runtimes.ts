import type { PluginDefinition } from '../sdk/index.js';
import { DECLARATIVE_BLOCKS, type Manifest } from '../manifest/index.js';

export type DeclarativeBlock = (typeof DECLARATIVE_BLOCKS)[number];

/** Builds the definition of a manifest-defined (declarative) plugin, e.g. from its `http` block. */
export type DeclarativeFactory = (manifest: Manifest) => PluginDefinition;

/**
 * Which declarative blocks this host can run, filled by the host at start. The manifest
 * validator (`plugins lint` and the kernel's loader) reads `blocks()`, so a block refuses as
 * "not supported by this host" until its runtime registers here.
 */
export class DeclarativeRuntimes {
  private readonly factories = new Map<DeclarativeBlock, DeclarativeFactory>();

  constructor(initial: Partial<Record<DeclarativeBlock, DeclarativeFactory>> = {}) {
    for (const [block, factory] of Object.entries(initial)) if (factory) this.register(block as DeclarativeBlock, factory);
  }

  register(block: DeclarativeBlock, factory: DeclarativeFactory): this {
    if (this.factories.has(block)) throw new Error(`a runtime for the "${block}" block is already registered`);
    this.factories.set(block, factory);
    return this;
  }

  get(block: DeclarativeBlock): DeclarativeFactory | undefined {
    return this.factories.get(block);
  }

  blocks(): DeclarativeBlock[] {
    return DECLARATIVE_BLOCKS.filter((b) => this.factories.has(b));
  }
}

/** The declarative block of a manifest, or undefined for an `entry` (code) plugin. */
export function declarativeBlockOf(manifest: Manifest): DeclarativeBlock | undefined {
  if ('entry' in manifest && manifest.entry) return undefined;
  return DECLARATIVE_BLOCKS.find((b) => b in manifest && (manifest as Record<string, unknown>)[b] !== undefined);
}
