import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CatalogueEntry, RegistryCatalogue, catalogueVersion } from '../platform/plugins/registry-catalogue.js';
import { findHostPackage } from './package-root.js';
import { runSectionGenerator } from './generated-section.js';

/** The fields of a built-in manifest the catalogue shows. */
interface BuiltinManifest {
  id: string;
  name: string;
  description: string;
  version: string;
  provides: Array<{ kind: string }>;
  maturity?: CatalogueEntry['maturity'];
  homepage?: string;
  entry?: string;
}

/** One catalogue entry per manifests/<id>.json, in id order. */
export function builtinEntries(root: string): CatalogueEntry[] {
  const dir = path.join(root, 'manifests');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(dir, name), 'utf8');
      const manifest = JSON.parse(text) as BuiltinManifest;
      const kinds = [...new Set(manifest.provides.map((p) => p.kind))];
      return CatalogueEntry.parse({
        id: manifest.id,
        name: manifest.name,
        description: manifest.description,
        version: manifest.version,
        kinds,
        ...(manifest.maturity ? { maturity: manifest.maturity } : {}),
        builtin: true,
        manifest: `../manifests/${name}`,
        ...(manifest.homepage ? { homepage: manifest.homepage } : {}),
        // Tags say what can be read off the manifest: its kinds, and whether it runs without code.
        tags: manifest.entry ? kinds : [...kinds, 'declarative'],
        versions: [catalogueVersion(text)],
      });
    });
}

/**
 * registry/index.json as the manifests make it: the built-ins generated from manifests/, then
 * the installable entries (curated by hand, manifests in registry/manifests/); each entry's
 * versions (integrity, host range) read from its manifest.
 */
export function renderRegistryIndex(root: string): string {
  const current = JSON.parse(readFileSync(path.join(root, 'registry/index.json'), 'utf8')) as { plugins: CatalogueEntry[] };
  const catalogue = new RegistryCatalogue(path.join(root, 'registry'));
  // The curated entries as they stand, their versions read again from their manifests.
  const installable = current.plugins
    .filter((entry) => entry.builtin !== true)
    .map((entry) => ({ ...entry, versions: [catalogueVersion(readFileSync(catalogue.manifestPath(entry), 'utf8'))] }));
  return `${JSON.stringify({ version: 1, plugins: [...builtinEntries(root), ...installable] }, null, 2)}\n`;
}

// `node dist/host/cli/registry-index.js` prints the catalogue; `--write` updates registry/index.json.
const { root: hostRoot } = findHostPackage(import.meta.url);
runSectionGenerator(import.meta.url, () => renderRegistryIndex(hostRoot), (_document, catalogue) => catalogue, path.join(hostRoot, 'registry/index.json'));
