import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The names in `dir`, sorted, dot entries left out; none when it cannot be read (gone, not a folder). */
export function visibleNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort().filter((name) => !name.startsWith('.'));
  } catch {
    return [];
  }
}

/** Folders never part of a plugin's own code: dependencies and dot folders (.git, caches). */
export function isIgnoredCodePath(relative: string): boolean {
  return relative.split(/[/\\]/).some((part) => part === 'node_modules' || (part.startsWith('.') && part !== '.' && part !== '..'));
}

/**
 * The files that make up a plugin's code: modules and the data files they may import. Editor
 * and deploy-tool temp files (`x.json.partial`, `x.js~`, `.swp`) are not, so writing one does not
 * start a generation.
 */
export function isCodeFile(name: string): boolean {
  return /\.(m|c)?js$|\.json$|\.wasm$|\.node$/.test(name);
}

const MAX_FILES = 5_000;

/**
 * A hash of every code file under `root` (names and contents; node_modules, dot entries and the
 * manifest, which has a fingerprint of its own, left out): it changes when any module of the
 * plugin changes, so it versions the import URLs and is part of the generation fingerprint.
 */
export function hashPluginFolder(root: string, exclude: readonly string[] = []): string {
  const skip = new Set(exclude.map((f) => path.resolve(f)));
  const hash = createHash('sha256').update(root);
  let files = 0;
  const walk = (dir: string) => {
    for (const name of visibleNames(dir)) {
      if (name === 'node_modules') continue;
      const full = path.join(dir, name);
      if (skip.has(full)) continue;
      const info = statSync(full, { throwIfNoEntry: false });
      if (!info) continue;
      if (info.isDirectory()) walk(full);
      else if (info.isFile() && isCodeFile(name) && ++files <= MAX_FILES) {
        hash.update(path.relative(root, full)).update('\0');
        try {
          hash.update(readFileSync(full));
        } catch {
          // Vanished while hashing: the watcher reports the change and the next hash sees it.
        }
        hash.update('\0');
      }
    }
  };
  walk(root);
  return hash.digest('hex').slice(0, 16);
}
