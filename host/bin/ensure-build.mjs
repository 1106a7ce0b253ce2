// Builds dist/ with tsc when it is missing or older than any source file.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
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

const mtime = (p) => (p && existsSync(p) ? statSync(p).mtimeMs : 0);

function build() {
  console.error('[switchboard] building (dist/ is missing or stale)');
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * `sources` narrows the staleness check to what the caller runs (the tests and benchmarks are
 * thousands of files to stat).
 */
export function ensureBuild(entry, sources = SOURCES) {
  const target = path.join(root, 'dist', entry);
  const built = mtime(target);
  const newestSource = Math.max(...sources.map((s) => newest(path.join(root, s))));
  if (built && built >= newestSource) return target;
  build();
  return target;
}

/** The git index of a checkout (a worktree's `.git` is a file naming its git directory), or undefined. */
function gitIndex() {
  const dotGit = path.join(root, '.git');
  if (!existsSync(dotGit)) return undefined;
  if (statSync(dotGit).isDirectory()) return path.join(dotGit, 'index');
  const gitdir = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  return gitdir ? path.join(path.resolve(root, gitdir), 'index') : undefined;
}

/**
 * `npm start`'s check, a few stats instead of a walk of the sources: `entry` is taken as current
 * unless it is missing or older than package.json, tsconfig.json or the git index (which a pull,
 * a checkout, a merge or a commit rewrites); only then are the sources walked, and built if one
 * is newer. A source edited by hand since is caught by `warnIfStale`, run once the gateway serves.
 */
export function ensureBuildQuick(entry) {
  const target = path.join(root, 'dist', entry);
  const built = mtime(target);
  const marks = [path.join(root, 'package.json'), path.join(root, 'tsconfig.json'), gitIndex()].map(mtime);
  if (built && !marks.some((m) => m > built)) return target;
  // A mark moved (a commit rewrites the git index too): walk the sources once to tell.
  if (!built || Math.max(...GATEWAY_SOURCES.map((s) => newest(path.join(root, s)))) > built) build();
  // The stamp: tsc may leave an unchanged output untouched; either way the build is current now.
  const now = new Date();
  if (existsSync(target)) utimesSync(target, now, now);
  return target;
}

/** Warns on stderr when a source is newer than `entry` (the full walk, off the start-up path). */
export function warnIfStale(entry, sources = GATEWAY_SOURCES) {
  const built = mtime(path.join(root, 'dist', entry));
  const newestSource = Math.max(...sources.map((s) => newest(path.join(root, s))));
  if (newestSource > built) console.error('[switchboard] a source file changed after the last build: this gateway runs the old build; run `npm run build` and start it again');
}
