import path from 'node:path';
import { manifestDiagnostic, quoted, type ManifestDiagnostic } from './diagnostics.js';

/**
 * Where a manifest sits, for the rule on its `entry`: the manifest's folder (unknown for a
 * manifest sent to /plugins/validate: it would be dropped into a manifests folder), and the host
 * package whose built-in manifests name code in plugins/.
 */
export interface EntryLocation {
  manifestDir?: string;
  packageRoot?: string;
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The one rule of an entry's path, for the validator (`plugins lint`, /plugins/validate,
 * registry install) and the loader alike: it resolves inside the manifest's folder, or inside
 * the host package. The loader then checks the real path (symlinks followed) the same way.
 */
export function entryLocationDiagnostic(entry: string, location: EntryLocation): ManifestDiagnostic | undefined {
  if (location.manifestDir === undefined) {
    // No folder known: the entry may not climb out of wherever the manifest is put.
    const normalized = path.posix.normalize(entry.replace(/\\/g, '/'));
    if (normalized !== '..' && !normalized.startsWith('../')) return undefined;
    return manifestDiagnostic('entry-outside-folder', 'entry', quoted(entry), normalized, "the manifest's folder");
  }
  const resolved = path.resolve(location.manifestDir, entry);
  if (inside(location.manifestDir, resolved) || (location.packageRoot !== undefined && inside(location.packageRoot, resolved))) return undefined;
  return manifestDiagnostic('entry-outside-folder', 'entry', quoted(entry), resolved, location.manifestDir);
}
