#!/usr/bin/env node
// npm test: checks the system packages the suite needs (installing them when root), builds,
// starts a throwaway PostgreSQL, runs every test file in its own process, prints the totals.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync, chmodSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { ensureWeb } from './build-web.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const log = (...m) => console.log('[test]', ...m);

function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || null;
}
function pgBinDir() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(path.join(base, v, 'bin', 'initdb'))) return path.join(base, v, 'bin');
  return null;
}

// System packages: name -> present?
function debInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}
const needs = [
  { pkg: 'ghostscript', ok: () => !!which('gs') },
  { pkg: 'postgresql', ok: () => !!pgBinDir() },
  // The container controls run against podman's Docker-compatible API (runc, catatonit as the
  // containers' init, an image made from busybox-static).
  { pkg: 'podman', ok: () => !!which('podman') },
  { pkg: 'runc', ok: () => !!which('runc') },
  { pkg: 'catatonit', ok: () => existsSync('/usr/libexec/podman/catatonit') },
  { pkg: 'busybox-static', ok: () => debInstalled('busybox-static') },
  { pkg: 'ripgrep', ok: () => !!which('rg') },
  { pkg: 'iproute2', ok: () => !!which('ip') },
  // The README tour test clones the repository and runs the tour's curl | jq commands.
  { pkg: 'git', ok: () => !!which('git') },
  { pkg: 'curl', ok: () => !!which('curl') },
  { pkg: 'jq', ok: () => !!which('jq') },
  // The console's browser tests drive Debian's chromium through playwright-core (no download).
  { pkg: 'chromium', ok: () => existsSync('/usr/bin/chromium') },
];
let missing = needs.filter((n) => !n.ok()).map((n) => n.pkg);
if (missing.length) {
  if (process.getuid && process.getuid() === 0) {
    log('installing system packages:', missing.join(' '));
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    missing = needs.filter((n) => !n.ok()).map((n) => n.pkg);
  }
  if (missing.length) {
    console.error(`[test] missing system packages: ${missing.join(', ')} (run as root, or: apt-get install -y ${missing.join(' ')})`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

// The judge server's tests use the real ONNX runtime, which `npm install` leaves out (an operator
// who runs the judge server installs it with `npm run judge-runtime`): install it when missing.
const judgeRuntime = path.join(root, 'plugins/judge-selfhosted/runtime');
if (!existsSync(path.join(judgeRuntime, 'node_modules/onnxruntime-node/package.json'))) {
  log('installing the judge server\'s ONNX runtime (npm run judge-runtime)');
  const npm = spawnSync('npm', ['run', 'judge-runtime'], { cwd: root, stdio: 'inherit' });
  if (npm.status !== 0) {
    console.error('[test] the judge server\'s ONNX runtime could not be installed: run npm run judge-runtime');
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

log('building');
// Incremental, its state inside dist/ (removing dist/ removes it): a run after a small change
// compiles that change (5 s of CPU) instead of every file (40 s).
const tscArgs = ['-p', path.join(root, 'tsconfig.json'), '--incremental', '--tsBuildInfoFile', path.join(root, 'dist/.tsbuildinfo')];
const build = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), ...tscArgs], { stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// The console (web/dist) for the browser tests, rebuilt only when web/ changed.
if (!ensureWeb()) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

// A throwaway PostgreSQL cluster owned by user postgres, on a free loopback port.
async function startPostgres() {
  const bin = pgBinDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = (cmd, cmdArgs) => {
    const isRoot = process.getuid && process.getuid() === 0;
    const full = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...cmdArgs]] : [cmd, cmdArgs];
    return spawnSync(full[0], full[1], { encoding: 'utf8' });
  };
  let r = asPostgres(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr}`);
  r = asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
  if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr} ${r.stdout}`);
  const stop = () => {
    asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
}

function findTests(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (entry.endsWith('.test.js')) out.push(full);
  }
  return out.sort();
}

const distTests = path.join(root, 'dist/test');
// A compiled test whose source was deleted or moved is stale build output, not a test.
const stale = findTests(distTests).filter((f) => !existsSync(path.join(root, 'test', path.relative(distTests, f).replace(/\.js$/, '.ts'))));
if (stale.length) log('ignoring compiled tests without a source:', stale.map((f) => path.relative(distTests, f)).join(', '));
let files = findTests(distTests).filter((f) => !stale.includes(f));
if (args.length) files = files.filter((f) => args.some((a) => f.includes(a.replace(/^test\//, '').replace(/\.ts$/, ''))));
if (!files.length) {
  console.error('[test] no test files found');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const pg = await startPostgres();
log('postgres at', pg.url.replace(/\/\/.*@/, '//***@'));
process.on('exit', () => pg.stop());
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 300_000);
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);
let passed = 0,
  failed = 0,
  skipped = 0;
const failures = [];

// Each file's CPU seconds (user+sys of its process tree, from GNU time) beside its wall time: a
// file that waits is cheap on a shared machine, one that computes is not.
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const timingDir = mkdtempSync(path.join(tmpdir(), 'switchboard-timing-'));
process.on('exit', () => rmSync(timingDir, { recursive: true, force: true }));
const timings = {};
let timingSeq = 0;

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const timeFile = path.join(timingDir, `${timingSeq++}`);
    const command = timeBin ? [timeBin, ['-f', '%U %S', '-o', timeFile, process.execPath, '--enable-source-maps', file]] : [process.execPath, ['--enable-source-maps', file]];
    const child = spawn(command[0], command[1], {
      cwd: root,
      env: { ...process.env, TEST_DATABASE_URL: pg.url, NODE_ENV: 'test', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[test] timed out after ${FILE_TIMEOUT_MS} ms`;
      killTree(child.pid);
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const num = (label) => {
        const m = output.match(new RegExp(`${label}:\\s+(\\d+)`));
        return m ? Number(m[1]) : null;
      };
      const total = num('Total');
      const ok = num('Passed');
      const skip = num('Skipped') ?? 0;
      const rel = path.relative(distTests, file);
      let p = 0,
        f = 0;
      if (total === null || ok === null) f = 1;
      else {
        p = ok;
        f = total - ok - skip;
        if (code !== 0 && f === 0) f = 1;
      }
      passed += p;
      failed += f;
      skipped += skip;
      const wall = (Date.now() - started) / 1000;
      const cpu = cpuSeconds(timeFile);
      timings[rel] = { wall, cpu };
      console.log(`${f ? 'FAIL' : 'ok  '} ${rel}  ${p} passed, ${f} failed${skip ? `, ${skip} skipped` : ''}  (${wall.toFixed(1)}s${cpu === null ? '' : `, cpu ${cpu.toFixed(1)}s`})`);
      if (f) failures.push({ rel, output });
      resolve();
    });
  });
}

/** SIGKILL to a process and its descendants (GNU time's child would outlive time itself). */
function killTree(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {}
  for (const c of children) killTree(c);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
}

/** user+sys seconds GNU time wrote (its last line; a killed child leaves a note above it). */
function cpuSeconds(timeFile) {
  if (!existsSync(timeFile)) return null;
  const last = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
  const m = last.match(/^([\d.]+) ([\d.]+)$/);
  return m ? Number(m[1]) + Number(m[2]) : null;
}

// The slow files first (seconds measured on a full run, test/slow-files.json), so that at the end
// the workers share short files instead of one waiting on a long one; the rest keep their order.
const slowPath = path.join(root, 'test/slow-files.json');
const slow = existsSync(slowPath) ? JSON.parse(readFileSync(slowPath, 'utf8')) : {};
const secondsOf = (file) => slow[path.relative(distTests, file)] ?? 0;
const queue = [...files].sort((a, b) => secondsOf(b) - secondsOf(a));
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (queue.length) await runFile(queue.shift());
  }),
);
for (const { rel, output } of failures) {
  console.log(`\n===== ${rel} =====\n${output.slice(-8000)}`);
}
const measured = Object.values(timings);
const sum = (key) => measured.reduce((n, t) => n + (t[key] ?? 0), 0);
log(`files: ${sum('wall').toFixed(0)} s wall, ${sum('cpu').toFixed(0)} s cpu summed over ${measured.length} files`);
// TEST_TIMINGS=<file>: each file's wall and cpu seconds as JSON (test/slow-files.json is made from it).
if (process.env.TEST_TIMINGS) writeFileSync(process.env.TEST_TIMINGS, JSON.stringify(timings, null, 1) + '\n');
// TEST_WRITE_SLOW_FILES=1 on a whole run: test/slow-files.json from its wall times (10 s and over).
if (process.env.TEST_WRITE_SLOW_FILES && !args.length) {
  const slowest = Object.entries(timings).filter(([, t]) => t.wall >= 10).sort((a, b) => b[1].wall - a[1].wall);
  writeFileSync(slowPath, JSON.stringify(Object.fromEntries(slowest.map(([rel, t]) => [rel, Math.round(t.wall)])), null, 1) + '\n');
}
if (skipped) console.log(`[test] ${skipped} skipped tests: every skip is a failure of this suite's promise`);
console.log(`${passed} passed, ${failed + skipped} failed`);
process.exit(failed + skipped ? 1 : 0);
