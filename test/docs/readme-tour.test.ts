import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir, until } from '../support/gateway.js';
import { networkEnv } from '../support/network-env.js';
import { listeningPort } from '../support/listening-port.js';
import { shellBlocks as blocks } from './repository-markdown.js';
import { copyBuildIntoClone } from '../support/clone-build.js';

// The README's "A five-minute tour", run as written from a fresh clone. The repository at HEAD
// (commit first: the working tree's changes are not in the clone) is cloned into a folder under
// os.tmpdir(); node_modules is a symlink to ROOT's instead of a network `npm install`, and dist/
// is ROOT's when its sources are HEAD's (the same files `npm start` would compile). Every
// ```sh block of the tour is split into commands and run with bash in the clone, `localhost:8080`
// pointing at the port the gateway reports (`npm start` with PORT=0), `<id>` the id the fax
// submit answered. A line `... npm start` (re)starts the gateway with the variables it sets. A
// block preceded by `<!-- tour-test: skip: <why> -->` is not run. Each command must have an
// expectation below and each expectation a command, so the README and the test cannot drift.

/** The tour section of the clone's README (HEAD's, like the code it runs against). */
let tour = '';

interface Ctx {
  url: string;
  id?: string;
}
interface Expectation {
  /** Run again (every 250 ms, up to 30 s) until the check passes. */
  poll?: boolean;
  check(out: string, ctx: Ctx): void;
}
const parsed = (out: string) => JSON.parse(out);
const jsonLines = (out: string) => out.trim().split(/\n(?=\{)/).map((chunk) => JSON.parse(chunk));

const EXPECT: Record<string, Expectation> = {
  "curl -s localhost:8080/health": { check: (out) => assert.equal(parsed(out), { status: 'ok' }) },
  'curl -s localhost:8080/health/ready': {
    check: (out) => {
      const ready = parsed(out);
      assert.is(ready.status, 'ready', out);
      const fax = ready.checks.find((c: { name: string }) => c.name === 'fax_backend');
      assert.ok(fax?.warning && /^not configured/.test(fax.detail), `fax_backend passes with a warning: ${JSON.stringify(fax)}`);
    },
  },
  'curl -s -F to=+15550000001 -F file=@docs/examples/letter.pdf localhost:8080/fax': {
    check: (out, ctx) => {
      const job = parsed(out);
      assert.is(job.status, 'queued', out);
      ctx.id = job.id;
    },
  },
  'curl -s localhost:8080/fax/<id> | jq .status': { poll: true, check: (out) => assert.is(out.trim(), '"SUCCESS"') },
  "curl -s localhost:8080/plugins | jq '.plugins[] | {id, state, generation, directions}'": {
    check: (out) => {
      const states = Object.fromEntries(jsonLines(out).map((p) => [p.id, p.state]));
      for (const id of ['storage-local', 'retrieval-sqlite', 'judge-selfhosted', 'fax-sim']) assert.is(states[id], 'active', `${id}: ${out}`);
      for (const id of ['judge-hosted', 'alert-slack', 'alert-discord', 'alert-webhook', 'providera']) assert.is(states[id], 'needs-config', `${id}: ${out}`);
    },
  },
  "curl -s localhost:8080/plugin-registry | jq '.plugins[] | {id, installed}'": {
    check: (out) => assert.equal(jsonLines(out).find((p) => p.id === 'keyfax'), { id: 'keyfax', installed: false }),
  },
  'npx switchboard plugins lint registry/manifests/keyfax.json': { check: (out) => assert.match(out, /ok \(keyfax@/) },
  'cp registry/manifests/keyfax.json data/manifests/': { check: (out) => assert.is(out, '') },
  "curl -s localhost:8080/plugins | jq '.plugins[] | select(.id==\"keyfax\") | {state, diagnostics}'": {
    poll: true,
    check: (out) => assert.is(parsed(out).state, 'needs-config', out),
  },
  "curl -s -X PUT localhost:8080/plugins/keyfax/config -H 'content-type: application/json' -d '{\"settings\": {\"account_sid\": \"AC123\", \"api_key\": \"sk_live_x\", \"from\": \"+15550001111\"}}'": {
    check: (out) => assert.not.match(out, /sk_live_x/),
  },
  'curl -s localhost:8080/plugins/keyfax/config': {
    check: (out) => {
      assert.is(parsed(out).settings.api_key, '***', out);
      assert.is(parsed(out).settings.account_sid, 'AC123', out);
    },
  },
  'curl -s -X POST localhost:8080/api/index/start': { check: (out) => assert.is(parsed(out).repo, 'switchboard', out) },
  "curl -s localhost:8080/api/index/status | jq -r '.status[-1]'": { poll: true, check: (out) => assert.match(out, /^Indexing completed in .* s$/m) },
  "curl -s 'localhost:8080/api/search?q=where+is+the+reload+queue+coalesced' | jq '.results[0].path'": {
    check: (out) => assert.is(out.trim(), '"core/kernel/reload-queue.ts"'),
  },
  "curl -s 'localhost:8080/api/search?q=normalizePhone&top_k=3' | jq '.results[] | {path, start_line, end_line}'": {
    check: (out) => {
      const hits = jsonLines(out);
      assert.is(hits.length, 3, out);
      assert.is(hits[0].path, 'host/surfaces/fax/jobs/phone.ts', out);
    },
  },
  "curl -s -X POST localhost:8080/api/rag -H 'content-type: application/json' -d '{\"question\": \"where is the reload queue coalesced?\"}' | jq '{mode, answer, citations}'": {
    check: (out) => {
      const rag = parsed(out);
      assert.is(rag.mode, 'extractive', out);
      assert.ok(rag.citations.length > 0, out);
      assert.match(rag.answer, /core\/kernel\/reload-queue\.ts/);
    },
  },
  'curl -s localhost:8080/api/ready | jq': { check: (out) => assert.equal(parsed(out), { ready: true, dependencies: [{ name: 'database', ready: true }], missing: [] }) },
  'curl -s localhost:8080/api/dev/status | jq .frontend.frontend_mode': { check: (out) => assert.match(out.trim(), /^"(dev_server|built_bundle|absent)"$/) },
  'curl -s localhost:8080/api/docker/status | jq': { check: (out) => assert.is(parsed(out).running, false, out) },
  'curl -s localhost:8080/admin/alerts | jq': { check: (out) => assert.ok(Array.isArray(parsed(out).alerts), out) },
};

const base = tempDir('switchboard-tour-');
const clone = path.join(base, 'switchboard');
let gateway: ChildProcess | undefined;
let output = '';
const ctx: Ctx = { url: '' };
const ran = new Set<string>();

/** The environment of a newcomer's shell: nothing of the test runner's (no DATABASE_URL, no DATA_DIR). */
const shellEnv = (extra: Record<string, string> = {}) => ({
  ...networkEnv(),
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? base,
  LANG: 'C.UTF-8',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  ...extra,
});

async function stopGateway() {
  if (!gateway || gateway.exitCode !== null || gateway.signalCode !== null) return;
  const exited = new Promise((resolve) => gateway!.once('exit', resolve));
  process.kill(-gateway.pid!, 'SIGTERM'); // npm and the gateway it runs: the group this test started
  await exited;
}

async function npmStart(vars: Record<string, string>) {
  await stopGateway();
  output = '';
  gateway = spawn('npm', ['start'], { cwd: clone, env: shellEnv({ PORT: '0', ...vars }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  gateway.stdout!.on('data', (d) => (output += d));
  gateway.stderr!.on('data', (d) => (output += d));
  const port = await listeningPort(gateway, 'switchboard listening', 50_000).catch((err: Error) => {
    throw new Error(`npm start: ${err.message}\n${output}`);
  });
  ctx.url = `http://localhost:${port}`;
}

function bash(command: string): { code: number | null; out: string } {
  const line = command.replaceAll('localhost:8080', ctx.url.replace('http://', '')).replaceAll('<id>', ctx.id ?? '<id>');
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', line], { cwd: clone, env: shellEnv(), encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const timings: string[] = [];
async function run(command: string) {
  const started = Date.now();
  try {
    await runOnce(command);
  } finally {
    timings.push(`${Date.now() - started} ms  ${command.slice(0, 80)}`);
  }
}

async function runOnce(command: string) {
  ran.add(command);
  const start = /^((?:[A-Z_]+=\S+\s+)*)(?:npm install && )?npm start$/.exec(command);
  if (start) {
    // `npm install` is the symlinked node_modules; the gateway is (re)started with the variables.
    const vars = Object.fromEntries([...start[1]!.matchAll(/([A-Z_]+)=(\S+)/g)].map((v) => [v[1]!, v[2]!]));
    await npmStart(vars);
    return;
  }
  const expectation = EXPECT[command];
  assert.ok(expectation, `the tour's command has an expectation in this test: ${command}`);
  let last = { code: null as number | null, out: '' };
  const attempt = () => {
    last = bash(command);
    assert.is(last.code, 0, `${command}\n${last.out}`);
    expectation!.check(last.out, ctx);
    return true;
  };
  if (!expectation!.poll) attempt();
  else await until(attempt, 30_000, 250).catch((err: Error) => assert.unreachable(`${command}: ${err.message}\n${last.out}`));
}

test.after(async () => {
  console.log(timings.join('\n'));
  await stopGateway();
  rmSync(base, { recursive: true, force: true });
});

test('a fresh clone of HEAD outside the repository, its node_modules linked from ROOT', () => {
  const r = spawnSync('git', ['clone', '--quiet', ROOT, clone], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
  // `npm start` then finds dist/ current (when HEAD's sources are this checkout's); its build of a
  // checkout without dist/ is test/host/bin/ensure-build.test.ts.
  copyBuildIntoClone(clone);
  tour = /^## A five-minute tour\n([\s\S]*?)^## /m.exec(readFileSync(path.join(clone, 'README.md'), 'utf8'))?.[1] ?? '';
});

test('the tour has its blocks', () => {
  const all = blocks(tour);
  assert.ok(all.length >= 8, `${all.length} blocks`);
  assert.is(all[0]!.commands[0], 'npm install && npm start', 'the tour starts the gateway as its first command');
  assert.equal(
    all.filter((b) => b.skip).map((b) => b.skip),
    ['needs a real keyfax account', 'a second long-running server; test/host/cli/judge-server-demo.test.ts runs these steps'],
  );
});

test("the tour's commands run as written and each gives what the README says", async () => {
  for (const block of blocks(tour)) {
    if (block.skip) continue;
    for (const command of block.commands) await run(command);
  }
  assert.equal(Object.keys(EXPECT).filter((c) => !ran.has(c)), [], 'every expectation belongs to a command of the tour');
});

test('the docs the tour links to answer on the running gateway', async () => {
  const links = [...tour.matchAll(/<http:\/\/localhost:8080(\/[^>]*)>/g)].map((m) => m[1]!);
  assert.equal(links, ['/', '/docs', '/openapi.json']);
  for (const link of links) assert.is((await fetch(`${ctx.url}${link}`)).status, 200, link);
  // `/` is the console, built by the clone's `npm start` (web/dist is not in the repository).
  const page = await (await fetch(`${ctx.url}/`)).text();
  assert.match(page, /<script type="module" crossorigin src="\/assets\/[\w-]+\.js"><\/script>/);
});

test('the command line from the clone: npx switchboard --help and --version exit 0', () => {
  for (const args of [['--help'], ['--version']]) {
    const r = spawnSync('npx', ['switchboard', ...args], { cwd: clone, env: shellEnv(), encoding: 'utf8', timeout: 30_000 });
    assert.is(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  }
});

test.run();
