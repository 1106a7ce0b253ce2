import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest package.json named `switchboard` above this module. */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        if ((JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'switchboard') return dir;
      } catch {
        // keep walking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the switchboard package root');
    dir = parent;
  }
}

export function hostVersion(root = packageRoot()): string {
  return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
