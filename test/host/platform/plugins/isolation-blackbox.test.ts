import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { startChildGateway, type ChildGateway } from '../../../support/child-gateway.js';
import { baseManifest, json, postFax, removeDir, ROOT, tempDir, until, writeFixturePlugin, writeManifest } from '../../../support/gateway.js';
import { UNRULY_NUMBERS } from '../../../fixtures/plugins/unruly-fax/index.js';

// The gateway as its own process with a fax provider written to misbehave (unruly-fax) dropped in
// isolated: while it blocks, hoards memory, throws in a timer or exits, /health answers as fast as
// at idle, a neighbour plugin serves, /plugins says why it failed, and no fax is lost or sent twice.

let gw: ChildGateway;
let dataDir: string;
let pluginsDir: string;
let pdf: Buffer;
let baselineP95 = 0;
const posted: Array<{ id: string; to: string }> = [];

const plugin = async (id: string) => (await json<{ plugins: any[] }>(await fetch(`${gw.url}/plugins`))).plugins.find((p) => p.id === id);
const active = (id: string) => until(async () => (await plugin(id))?.state === 'active', 60_000, 50);
const searchServes = async () => {
  const res = await fetch(`${gw.url}/api/search?q=still-here&top_k=1`);
  return res.status === 200 && (await json<{ results: unknown[] }>(res)).results.length === 1;
};
const fax = async (id: string) => json(await fetch(`${gw.url}/fax/${id}`));

async function sendFax(to: string): Promise<string> {
  const res = await postFax(gw.url, to, pdf);
  assert.is(res.status, 202);
  const { id } = await json<{ id: string }>(res);
  posted.push({ id, to });
  return id;
}

/** Sequential GET /health latencies (ms) until `stop` settles, `atLeast` of them. */
async function sampleHealth(stop: Promise<unknown>, atLeast = 20): Promise<number[]> {
  let done = false;
  void stop.finally(() => (done = true));
  const samples: number[] = [];
  while (!done || samples.length < atLeast) {
    const t0 = performance.now();
    const res = await fetch(`${gw.url}/health`);
    await res.arrayBuffer();
    samples.push(performance.now() - t0);
    assert.is(res.status, 200);
  }
  return samples;
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

test.before(async () => {
  dataDir = tempDir('switchboard-isolation-blackbox-');
  pluginsDir = path.join(dataDir, 'drop-ins');
  writeFixturePlugin(pluginsDir, 'unruly', 'unruly-fax', { provides: [{ kind: 'fax', contract: 'fax@^1' }], isolation: 'process' });
  writeFixturePlugin(pluginsDir, 'echo', 'echo-retrieval', { isolation: 'process' });
  pdf = await makePdf(1);
  gw = await startChildGateway({
    DATA_DIR: dataDir,
    ENV_FILE: path.join(dataDir, 'none.env'),
    PLUGINS_PATH: pluginsDir,
    FAX_BACKEND: 'unruly',
    RETRIEVAL_BACKEND: 'echo',
    PLUGIN_MEMORY_MB: '64',
    // Long enough for V8's last collections before a heap-limit abort on a loaded machine (else the hoarder reads as blocked).
    PLUGIN_UNRESPONSIVE_MS: '10000',
    PLUGIN_START_TIMEOUT_MS: '30000',
    PLUGIN_RETRY_INITIAL_MS: '200',
    PLUGIN_RETRY_MAX_MS: '1000',
    FAX_DISPATCH_POLL_MS: '100',
    FAX_UNCERTAIN_RECHECK_MS: '300',
    // The test polls /plugins and /fax/{id} many times a second.
    MAX_REQUESTS_PER_MINUTE: '100000',
  });
});

test.after(async () => {
  await gw?.kill('SIGKILL');
  removeDir(dataDir);
});

test('idle: both isolated plugins serve; the /health baseline', async () => {
  await active('unruly');
  await active('echo');
  assert.ok(await searchServes());
  assert.equal((await plugin('echo')).isolation, { ...(await plugin('echo')).isolation, mode: 'process', restarts: 0, last_failure: null, thread_id: null });
  const id = await sendFax('+15551230000');
  await until(async () => (await fax(id)).provider_sid, 30_000, 50);
  await sampleHealth(Promise.resolve(), 10); // warm-up
  baselineP95 = p95(await sampleHealth(Promise.resolve(), 60));
});

const misdeeds: Array<[string, string, RegExp]> = [
  ['a busy loop in send', UNRULY_NUMBERS.busyLoop, /event loop was blocked/],
  ['unbounded allocation', UNRULY_NUMBERS.allocate, /memory limit \(64 MB\)/],
  ['a throw in a timer', UNRULY_NUMBERS.timerThrow, /thrown in a timer of unruly-fax/],
  ['process.exit() in the plugin', UNRULY_NUMBERS.exit, /exited \(code 3\)/],
];
for (const [what, number, reason] of misdeeds) {
  test(`${what}: /health keeps its pace, the neighbour serves, /plugins says failed and why, then it is back`, async () => {
    await active('unruly');
    const { generation: before, isolation: was } = await plugin('unruly');
    assert.is(was.mode, 'process');
    assert.ok(Number.isInteger(was.pid) && was.pid !== gw.pid, 'a child process of its own');
    let neighbourCalls = 0;
    const episode = (async () => {
      await sendFax(number);
      const failed = await until(async () => {
        const p = await plugin('unruly');
        return p?.state === 'failed' ? p : undefined;
      }, 60_000, 20);
      assert.match(failed.last_error ?? '', reason);
      assert.match(failed.isolation.last_failure ?? '', reason);
      assert.is(failed.isolation.restarts, was.restarts + 1);
      assert.is(failed.isolation.pid, null);
      assert.ok(await searchServes(), 'the neighbour serves while the bad plugin is down');
      neighbourCalls++;
      await until(async () => {
        const p = await plugin('unruly');
        return p?.state === 'active' && p.generation > before ? p : undefined;
      }, 60_000, 50).then((back) => {
        assert.ok(back.isolation.pid !== was.pid, 'restarted in a new process');
        assert.match(back.isolation.last_failure ?? '', reason, 'the last failure stays visible after the restart');
      });
    })();
    const samples = await sampleHealth(episode);
    await episode;
    assert.is(neighbourCalls, 1);
    // A child process on a loaded 2-core machine: an offset over the baseline, not a ratio.
    assert.ok(p95(samples) <= baselineP95 + 100, `/health p95 ${p95(samples).toFixed(1)} ms over ${samples.length} calls, idle ${baselineP95.toFixed(1)} ms`);
    const id = await sendFax('+15551230000');
    await until(async () => (await fax(id)).provider_sid, 30_000, 50);
  });
}

test('the fix dropped in is picked up: the former busy-loop number is sent', async () => {
  await active('unruly');
  const before = (await plugin('unruly')).generation as number;
  const entry = path.join(pluginsDir, 'unruly', 'entry.mjs');
  writeFileSync(entry, `export { default } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/test/fixtures/plugins/unruly-fax-fixed/index.js')).href)};\n`);
  writeManifest(path.join(pluginsDir, 'unruly', 'manifest.json'), { ...baseManifest('unruly'), entry: 'entry.mjs', version: '1.0.1', provides: [{ kind: 'fax', contract: 'fax@^1' }], isolation: 'process' });
  await until(async () => {
    const p = await plugin('unruly');
    // /plugins shows the new manifest's version before its generation replaces the old one.
    return p?.state === 'active' && p.version === '1.0.1' && p.generation > before;
  }, 60_000, 50);
  const id = await sendFax(UNRULY_NUMBERS.busyLoop);
  const sent = await until(async () => {
    const job = await fax(id);
    return job.provider_sid ? job : undefined;
  }, 30_000, 50);
  assert.is(sent.provider_sid, `fixed-${id}`);
});

test('no fax lost or sent twice: every job reached the plugin exactly once; a send that crashed is not resent', async () => {
  const log = path.join(dataDir, 'plugin-data', 'unruly', 'sends.log');
  assert.ok(existsSync(log), log);
  const jobs = readFileSync(log, 'utf8').trim().split('\n').map((line) => line.split(' ')[0]);
  for (const { id, to } of posted) {
    assert.is(jobs.filter((j) => j === id).length, 1, `job ${id} to ${to} reached the plugin once`);
    const job = await fax(id);
    // A crashed send may have reached the provider: it is looked up, never resent or failed blindly.
    if (to !== '+15551230000' && !job.provider_sid) assert.is(job.outcome, undefined, JSON.stringify(job));
    else assert.ok(job.provider_sid, JSON.stringify(job));
  }
  assert.is(jobs.length, posted.length);
});

test.run();
