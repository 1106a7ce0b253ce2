import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { z } from 'zod';
import { PLUGIN_ID_PATTERN, PLUGIN_ID_RULE } from '../../../core/manifest/plugin-id.js';

/** A version the catalogue offers: the SRI of its manifest's bytes and the host range it asks for. */
export const CatalogueVersion = z
  .object({
    version: z.string(),
    integrity: z.string().describe("SRI (sha256) of the manifest file's bytes; an install refuses a manifest that does not match"),
    host: z.string().nullable().describe("The manifest's host semver range; null when it names none"),
  })
  .strict();
export type CatalogueVersion = z.infer<typeof CatalogueVersion>;

/** The catalogue's version record of a manifest file's text. */
export function catalogueVersion(manifestText: string): CatalogueVersion {
  const manifest = JSON.parse(manifestText) as { version?: unknown; host?: unknown };
  return {
    version: String(manifest.version),
    integrity: `sha256-${createHash('sha256').update(manifestText).digest('base64')}`,
    host: typeof manifest.host === 'string' ? manifest.host : null,
  };
}

/** Whether a host of `hostVersion` is in `range` (no range, or not a valid one, leaves it to the manifest's validation). */
export function hostInRange(range: string | null | undefined, hostVersion: string): boolean {
  return typeof range !== 'string' || !semver.validRange(range) || semver.satisfies(hostVersion, range, { includePrerelease: true });
}

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
    /** Generated from the manifest by `node dist/host/cli/registry-index.js --write`. */
    versions: z.array(CatalogueVersion).default([]),
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
