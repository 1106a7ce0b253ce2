import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PLUGIN_ID_PATTERN, PLUGIN_ID_RULE } from '../../../core/manifest/plugin-id.js';

export const CatalogueEntry = z
  .object({
    id: z.string().regex(PLUGIN_ID_PATTERN, PLUGIN_ID_RULE),
    name: z.string(),
    description: z.string(),
    version: z.string(),
    kinds: z.array(z.string()),
    maturity: z.enum(['alpha', 'beta', 'stable', 'deprecated']).optional(),
    /** Ships with the host (its manifest is in manifests/); not installable or removable. */
    builtin: z.boolean().default(false),
    /** The manifest, relative to registry/. */
    manifest: z.string(),
    homepage: z.string().optional(),
    tags: z.array(z.string()).default([]),
  })
  .strict();
export type CatalogueEntry = z.infer<typeof CatalogueEntry>;

const CatalogueFile = z.object({ version: z.literal(1), plugins: z.array(CatalogueEntry) }).strict();

/** The curated catalogue in registry/index.json. Re-read on every call: it is a small file. */
export class RegistryCatalogue {
  constructor(readonly dir: string) {}

  entries(): { entries: CatalogueEntry[]; problem?: string } {
    const file = path.join(this.dir, 'index.json');
    try {
      const parsed = CatalogueFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!parsed.success) return { entries: [], problem: `registry/index.json: ${parsed.error.issues[0]?.message}` };
      return { entries: parsed.data.plugins };
    } catch (err) {
      return { entries: [], problem: `registry/index.json unreadable: ${(err as Error).message}` };
    }
  }

  find(id: string): CatalogueEntry | undefined {
    return this.entries().entries.find((e) => e.id === id);
  }

  /** The manifest file of an installable entry; refuses paths that leave registry/. */
  manifestPath(entry: CatalogueEntry): string {
    const full = path.resolve(this.dir, entry.manifest);
    if (!full.startsWith(this.dir + path.sep) || !full.endsWith('.json')) throw new Error(`registry entry ${entry.id} names a manifest outside the registry`);
    return full;
  }
}
