// Builds dist/ with tsc when it is missing or older than any source file.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCES = ['core', 'plugins', 'host', 'docs/examples', 'test', 'bench', 'tsconfig.json', 'package.json'];
export const GATEWAY_SOURCES = ['core', 'plugins', 'host', 'tsconfig.json', 'package.json'];

function newest(p) {
  if (!existsSync(p)) return 0;
  const info = statSync(p);
  if (!info.isDirectory()) return /\.(ts|json)$/.test(p) ? info.mtimeMs : 0;
  let max = 0;
  for (const name of readdirSync(p)) if (name !== 'node_modules') max = Math.max(max, newest(path.join(p, name)));
  return max;
}

/**
 * `sources` narrows the staleness check to what the caller runs: `npm start` looks only at the
 * gateway's own sources, not at the tests and benchmarks (thousands of files to stat).
 */
export function ensureBuild(entry, sources = SOURCES) {
  const target = path.join(root, 'dist', entry);
  const built = existsSync(target) ? statSync(target).mtimeMs : 0;
  const newestSource = Math.max(...sources.map((s) => newest(path.join(root, s))));
  if (built && built >= newestSource) return target;
  console.error('[switchboard] building (dist/ is missing or stale)');
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  return target;
}
