// The 10,000-file TypeScript/JavaScript tree of the code-search benchmarks (this package's
// node_modules, then npm's own, then copies of the first files under `copies/` until 10,000),
// hard-linked into a temp directory, and the queries both benchmarks time.
import { linkSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../test/support/gateway.js';

const MAX_BYTES = 1024 * 1024;
const SOURCE = /\.(ts|js|mjs|cjs)$/;

export const QUERIES = [
  'parseHttpHeader', 'createServer', 'readFileSync', 'where is the json body parsed', 'retry with exponential backoff',
  'semver satisfies range', 'escape html entities', 'pdf page size', 'websocket close frame', 'base64 encode buffer',
  'toJSONSchema', 'zod string min length', 'sqlite prepare statement', 'tree sitter parser language', 'timeout abort signal',
  'express router middleware', 'glob pattern match', 'utf8 decode', 'deep equal objects', 'format date iso',
];

function collect(dir: string, out: string[], limit: number): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (out.length >= limit) return;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) collect(full, out, limit);
    else if (e.isFile() && SOURCE.test(e.name) && statSync(full).size <= MAX_BYTES) out.push(full);
  }
}

/** Builds the tree under a new temp directory (the files are under its `node_modules/`); the caller removes it. */
export function codeTree(target = 10_000): { dir: string; files: number; bytes: number } {
  const tree = tempDir('switchboard-bench-tree-');
  const sources: Array<[string, string]> = [];
  for (const base of [path.join(ROOT, 'node_modules'), '/usr/lib/node_modules']) {
    const found: string[] = [];
    collect(base, found, target - sources.length);
    for (const f of found) sources.push([f, path.join(path.basename(path.dirname(base)) || 'usr', path.relative(base, f))]);
  }
  for (let i = 0; sources.length < target; i++) {
    const [abs, rel] = sources[i]!;
    sources.push([abs, path.join('copies', rel)]);
  }
  let bytes = 0;
  for (const [abs, rel] of sources) {
    const file = path.join(tree, 'node_modules', rel);
    mkdirSync(path.dirname(file), { recursive: true });
    linkSync(abs, file);
    bytes += statSync(abs).size;
  }
  return { dir: tree, files: sources.length, bytes };
}
