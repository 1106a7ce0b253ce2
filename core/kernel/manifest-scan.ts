import path from 'node:path';
import { isPluginId, manifestDiagnostic, parseManifestText, type Manifest, type ManifestDiagnostic, type ManifestValidation, type ValidateManifestOptions } from '../manifest/index.js';
import type { ManifestFile } from './manifest-source.js';

export interface ScannedManifest {
  file: ManifestFile;
  id: string;
  manifest?: Manifest;
  diagnostics: ManifestDiagnostic[];
}

/**
 * Validation results of the last scan by manifest content: a rescan (a reload of one plugin
 * among many) validates only the files that changed, while the host's facts stay the same.
 */
export class ManifestValidations {
  private facts = '';
  private byHash = new Map<string, ManifestValidation>();

  validate(files: readonly ManifestFile[], facts: ValidateManifestOptions): ManifestValidation[] {
    const key = JSON.stringify(facts);
    const before = key === this.facts ? this.byHash : new Map<string, ManifestValidation>();
    this.facts = key;
    this.byHash = new Map();
    return files.map((file) => {
      const result = before.get(file.hash) ?? this.byHash.get(file.hash) ?? parseManifestText(file.text, facts);
      this.byHash.set(file.hash, result);
      return result;
    });
  }
}

/**
 * Validates the manifests found on the search path and names each one's record. Earlier files
 * win a duplicate id; the later one becomes a `duplicate:<path>` record with a diagnostic. A
 * manifest broken past reading its id keeps the id its file had (`idByPath`), so a bad save
 * does not remove a serving plugin.
 */
export function scanManifests(
  files: readonly ManifestFile[],
  facts: ValidateManifestOptions,
  idByPath: ReadonlyMap<string, string>,
  validations = new ManifestValidations(),
): ScannedManifest[] {
  const seen = new Map<string, ManifestFile>();
  const out: ScannedManifest[] = [];
  const results = validations.validate(files, facts);
  for (const [i, file] of files.entries()) {
    const result = results[i]!;
    const id = result.manifest?.id ?? rawId(file.text) ?? idByPath.get(file.path) ?? `invalid:${path.basename(file.path)}`;
    const first = seen.get(id);
    if (first) {
      out.push({
        file,
        id: `duplicate:${file.path}`,
        diagnostics: [{ severity: 'error', code: 'duplicate-id', path: 'id', message: `id "${id}" is already provided by ${first.path}` }],
      });
      continue;
    }
    seen.set(id, file);
    out.push({ file, id, diagnostics: result.diagnostics, ...(result.manifest ? { manifest: result.manifest } : {}) });
  }
  refuseClaimsTaken(out);
  return out;
}

/**
 * Names and paths are shared by every manifest: an alias may not be another plugin's id or an
 * earlier manifest's alias, a webhook alias path not an earlier manifest's path. The later
 * manifest is refused, as with a duplicate id.
 */
function refuseClaimsTaken(scanned: ScannedManifest[]): void {
  const names = new Map<string, string>(scanned.filter((p) => p.manifest).map((p) => [p.id, p.id]));
  const paths = new Map<string, string>();
  for (const p of scanned) {
    if (!p.manifest) continue;
    const taken: ManifestDiagnostic[] = [];
    p.manifest.aliases?.forEach((alias, i) => {
      const owner = names.get(alias);
      if (owner !== undefined && owner !== p.id) taken.push(manifestDiagnostic('alias-taken', `aliases.${i}`, JSON.stringify(alias), owner));
    });
    p.manifest.webhookAliases?.forEach((alias, i) => {
      const owner = paths.get(alias.path.toLowerCase());
      if (owner !== undefined) taken.push(manifestDiagnostic('webhook-alias-taken', `webhookAliases.${i}.path`, JSON.stringify(alias.path), owner));
    });
    if (taken.length) {
      p.diagnostics = [...p.diagnostics, ...taken];
      delete p.manifest;
      continue;
    }
    for (const alias of p.manifest.aliases ?? []) names.set(alias, p.id);
    for (const alias of p.manifest.webhookAliases ?? []) paths.set(alias.path.toLowerCase(), p.id);
  }
}

function rawId(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { id?: unknown };
    return isPluginId(value?.id) ? value.id : undefined;
  } catch {
    return undefined;
  }
}
