import path from 'node:path';
import type { ManifestFile } from './manifest-source.js';

/** What the watcher knows of files still being written (the kernel's ManifestWatcher). */
export interface WriteGate {
  /**
   * Whether a scan may take `text` (undefined: the file is gone) as the content of `file`, which
   * changed since the last scan.
   */
  admits(file: string, text: string | undefined): boolean;
  /** True while `file` is being written. */
  settling(file: string): boolean;
}

/**
 * The manifests a scan goes by: what is on disk, except that a changed file the gate does not
 * admit yet (being written, or gone for less than the watcher's stability wait) keeps what the
 * last scan took, or is left out when it is new. So a scan for any reason (another plugin's
 * change, an operator's rescan) never reads a half-written manifest; the watcher asks for
 * another scan once the file settles.
 */
export function admitManifests(
  found: readonly ManifestFile[],
  previous: ReadonlyMap<string, ManifestFile>,
  gate: WriteGate,
  searchDirs: readonly string[],
): ManifestFile[] {
  const out: ManifestFile[] = [];
  const seen = new Set<string>();
  for (const file of found) {
    seen.add(file.path);
    const before = previous.get(file.path);
    if (before?.hash === file.hash || gate.admits(file.path, file.text)) out.push(file);
    else if (before) out.push(before);
  }
  let kept = false;
  for (const [file, before] of previous) {
    if (seen.has(file) || gate.admits(file, undefined)) continue;
    out.push(before);
    kept = true;
  }
  // A kept file goes back to its place in the search order: earlier files win duplicate ids.
  return kept ? out.sort((a, b) => searchOrder(a, searchDirs) - searchOrder(b, searchDirs) || compareText(entryName(a), entryName(b))) : out;
}

function searchOrder(file: ManifestFile, searchDirs: readonly string[]): number {
  return searchDirs.indexOf(file.searchDir);
}

/** The search directory's entry the manifest was found through (`x.json` or the folder `x`). */
function entryName(file: ManifestFile): string {
  return path.relative(file.searchDir, file.path).split(path.sep)[0]!;
}

// The order of Array.prototype.sort() without a comparator, as findManifests lists names.
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
