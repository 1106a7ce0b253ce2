import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface HostPackage {
  root: string;
  version: string;
}

/**
 * The switchboard package this module belongs to: the nearest package.json named
 * "switchboard" above it, so the lookup works from the sources and from dist/ alike.
 */
export function findHostPackage(moduleUrl: string = import.meta.url): HostPackage {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'switchboard' && typeof pkg.version === 'string') return { root: dir, version: pkg.version };
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package.json of switchboard above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}
