import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseManifestText, type Manifest } from '../../../core/manifest/index.js';
import { CONTRACT_VERSIONS, type ProviderKind } from '../../../core/sdk/contracts/index.js';
import { hostVersion, packageRoot } from '../runtime/paths.js';

let cached: Manifest[] | undefined;

/**
 * The valid manifests of the package's manifests/ folder, read once. The configuration model
 * takes its built-in backends from them, before the kernel runs; dropped manifests never
 * change a default.
 */
export function builtInManifests(): Manifest[] {
  if (cached) return cached;
  const root = packageRoot();
  const dir = path.join(root, 'manifests');
  const facts = { hostVersion: hostVersion(root), contracts: CONTRACT_VERSIONS };
  cached = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .flatMap((name) => parseManifestText(readFileSync(path.join(dir, name), 'utf8'), facts).manifest ?? []);
  return cached;
}

/** The id of the built-in manifest marked `default` for `kind`; the package ships one per kind it needs. */
export function builtInDefaultOf(kind: ProviderKind): string {
  const found = builtInManifests().find((m) => m.provides.some((p) => p.kind === kind && p.default === true));
  if (!found) throw new Error(`no built-in manifest in manifests/ is marked "default" for kind "${kind}"`);
  return found.id;
}

/** The name a setting shows for the default of `kind`: its manifest's first alias, else its id. */
export function builtInDefaultNameOf(kind: ProviderKind): string {
  const id = builtInDefaultOf(kind);
  return builtInManifests().find((m) => m.id === id)?.aliases?.[0] ?? id;
}
