import { readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CatalogueEntry } from '../platform/plugins/registry-catalogue.js';
import { findHostPackage } from './package-root.js';

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
      const manifest = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as BuiltinManifest;
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
      });
    });
}

/**
 * registry/index.json as the manifests make it: the built-ins generated from manifests/, then
 * the installable entries (curated by hand, manifests in registry/manifests/) as they stand.
 */
export function renderRegistryIndex(root: string): string {
  const current = JSON.parse(readFileSync(path.join(root, 'registry/index.json'), 'utf8')) as { plugins: Array<{ builtin?: boolean }> };
  const installable = current.plugins.filter((entry) => entry.builtin !== true);
  return `${JSON.stringify({ version: 1, plugins: [...builtinEntries(root), ...installable] }, null, 2)}\n`;
}

// `node dist/host/cli/registry-index.js` prints the catalogue; `--write` updates registry/index.json.
async function main(args: string[]): Promise<void> {
  const { root } = findHostPackage(import.meta.url);
  const text = renderRegistryIndex(root);
  if (args[0] !== '--write') {
    process.stdout.write(text);
    return;
  }
  const file = path.join(root, 'registry/index.json');
  await writeFile(file, text);
  process.stdout.write(`updated ${file}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
