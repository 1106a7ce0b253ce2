// Install: `npm ci` of this checkout's package.json and lock against the same of a baseline
// commit (INSTALL_BASELINE, default b599826: the last one whose plain install carried the judge
// server's ONNX runtime), each in a fresh temp folder, alternated (`BENCH_ROUNDS`, default 2) on
// the same npm cache: wall time, size of node_modules and npm's warnings. Then the opt-in
// `npm run judge-runtime` install, timed the same way. About five minutes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, removeDir, tempDir } from '../test/support/gateway.js';
import { trackDir } from './leftovers.js';
import { median } from './stats.js';

const BASELINE = process.env.INSTALL_BASELINE ?? 'b599826';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

function gitShow(revision: string, file: string): string {
  const r = spawnSync('git', ['show', `${revision}:${file}`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`git show ${revision}:${file}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** A temp folder holding `revision`'s install files (the checkout's when revision is undefined). */
function project(revision: string | undefined): string {
  const dir = tempDir('switchboard-bench-install-');
  trackDir(dir);
  const read = (file: string) => (revision ? gitShow(revision, file) : readFileSync(path.join(ROOT, file), 'utf8'));
  // The files npm ci reads: the root manifest and lock, and each workspace's manifest.
  const workspaces = (JSON.parse(read('package.json')) as { workspaces?: string[] }).workspaces ?? [];
  for (const file of ['package.json', 'package-lock.json', ...workspaces.map((w) => `${w}/package.json`)]) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), read(file));
  }
  return dir;
}

function sizeMB(dir: string): number {
  const r = spawnSync('du', ['-sm', dir], { encoding: 'utf8' });
  return Number(r.stdout.split('\t')[0]);
}

interface Install {
  seconds: number;
  mb: number;
  warnings: string[];
}

function npmCi(dir: string, args: string[] = ['ci', '--no-audit', '--no-fund']): Install {
  const started = process.hrtime.bigint();
  const r = spawnSync('npm', args, { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} in ${dir} failed: ${r.stderr.slice(-2000)}`);
  const warnings = `${r.stdout}\n${r.stderr}`.split('\n').filter((line) => /npm warn/i.test(line));
  return { seconds, mb: sizeMB(path.join(dir, 'node_modules')), warnings };
}

const load = () => spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ')[0];
const before: Install[] = [];
const after: Install[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, revision, into] of [
    ['baseline', BASELINE, before],
    ['this checkout', undefined, after],
  ] as const) {
    const dir = project(revision);
    const result = npmCi(dir);
    into.push(result);
    console.log(`round ${round + 1} ${label}: npm ci ${result.seconds.toFixed(1)} s, node_modules ${result.mb} MB, ${result.warnings.length} npm warnings (load ${load()})`);
    for (const warning of result.warnings) console.log(`  ${warning}`);
    removeDir(dir);
  }
}
const b = median(before.map((r) => r.seconds));
const a = median(after.map((r) => r.seconds));
console.log(
  `npm ci median: baseline ${BASELINE} ${b.toFixed(1)} s, ${before[0]!.mb} MB | this checkout ${a.toFixed(1)} s, ${after[0]!.mb} MB | time ratio ${(a / b).toFixed(2)}x, size ratio ${(after[0]!.mb / before[0]!.mb).toFixed(2)}x (target < 90 s, no warnings: ${a < 90 && after.every((r) => r.warnings.length === 0) ? 'met' : 'not met'})`,
);

// The opt-in runtime, as an operator who runs the judge server installs it.
const runtime = tempDir('switchboard-bench-runtime-');
trackDir(runtime);
for (const file of ['package.json', 'package-lock.json']) writeFileSync(path.join(runtime, file), readFileSync(path.join(ROOT, 'plugins/judge-selfhosted/runtime', file), 'utf8'));
const opt = npmCi(runtime, ['ci', '--ignore-scripts', '--no-audit', '--no-fund']);
console.log(`npm run judge-runtime (opt-in): ${opt.seconds.toFixed(1)} s, ${opt.mb} MB, ${opt.warnings.length} npm warnings`);
removeDir(runtime);
