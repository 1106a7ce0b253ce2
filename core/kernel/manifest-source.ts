import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { visibleNames } from './code-fingerprint.js';

/** A manifest file found on the search path, read once per scan. */
export interface ManifestFile {
  path: string;
  /** The search directory it was found in. */
  searchDir: string;
  text: string;
  hash: string;
}

/**
 * Manifests on the search path: `<dir>/*.json` and `<dir>/<plugin>/manifest.json`, so a
 * third party can keep a plugin folder (manifest plus code) in a PLUGINS_PATH directory.
 * Earlier directories win on duplicate ids (the caller decides; order is kept here).
 */
export function findManifests(searchDirs: readonly string[]): ManifestFile[] {
  const out: ManifestFile[] = [];
  for (const dir of searchDirs) {
    for (const name of visibleNames(dir)) {
      const full = path.join(dir, name);
      let candidate: string | undefined;
      try {
        const info = statSync(full);
        if (info.isFile() && name.endsWith('.json')) candidate = full;
        else if (info.isDirectory()) {
          const inner = path.join(full, 'manifest.json');
          if (statSync(inner, { throwIfNoEntry: false })?.isFile()) candidate = inner;
        }
      } catch {
        continue;
      }
      if (!candidate) continue;
      try {
        const text = readFileSync(candidate, 'utf8');
        out.push({ path: candidate, searchDir: dir, text, hash: createHash('sha256').update(text).digest('hex') });
      } catch {
        // Vanished between readdir and read: the next scan sees the truth.
      }
    }
  }
  return out;
}
