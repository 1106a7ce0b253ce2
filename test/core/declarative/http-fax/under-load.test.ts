import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { ROOT, json, postFax, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../support/gateway.js';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { startRecordingProvider, type RecordingProvider } from './recording-provider.js';

// 200 faxes through a manifest provider while its manifest is edited twice and broken once.
const ID = 'faxpipe-load';
const TOTAL = 200;

let gw: TestGateway;
let provider: RecordingProvider;
let pluginsDir: string;
let manifestFile: string;
const base = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8'));

const writeAtomically = (text: string) => {
  writeFileSync(`${manifestFile}.partial`, text);
  renameSync(`${manifestFile}.partial`, manifestFile);
};
const plugin = async () => (await json(await fetch(`${gw.url}/plugins/${ID}`))) as any;

/** Sends the provider received and has not answered yet: the test answers them when it chooses. */
let held: Array<{ jobId: string; answer(): void }> = [];
let holding = true;
/** The provider's id for each job it accepted. */
const sidOf = new Map<string, string>();

test.before(async () => {
  provider = await startRecordingProvider();
  let n = 0;
  provider.answer((req, res) => {
    if (req.method === 'POST' && req.path === '/v1/faxes') {
      const id = `fp-${++n}`;
      const jobId = JSON.parse(req.body.toString('utf8')).client_reference as string;
      const answer = () => {
        sidOf.set(jobId, id);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id, status: 'queued' } }));
      };
      if (holding) held.push({ jobId, answer });
      else setTimeout(answer, 5);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { status: 'sending' } }));
  });
  pluginsDir = tempDir('switchboard-load-');
  manifestFile = path.join(pluginsDir, `${ID}.json`);
  writeAtomically(JSON.stringify({ ...base, id: ID }));
  gw = await startGateway({
    PLUGINS_PATH: pluginsDir,
    FAX_BACKEND: ID,
    FAXPIPE_BASE_URL: `${provider.origin}/v1`,
    FAXPIPE_API_TOKEN: 'load-token',
    FAX_DISPATCH_CONCURRENCY: '40',
    FAX_DISPATCH_POLL_MS: '20',
    LOG_LEVEL: 'warn',
  });
});
test.after(async () => {
  await gw?.close();
  await provider.close();
  removeDir(pluginsDir);
});

test('edited twice and broken once under 200 faxes in flight: nothing fails, each fax is sent once', async () => {
  assert.is((await plugin()).state, 'active');
  const pdf = await makePdf(1);
  const posts: Array<Promise<Response>> = [];
  for (let i = 0; i < TOTAL; i++) posts.push(postFax(gw.url, `+1555030${String(i).padStart(4, '0')}`, pdf));
  const generationAtLeast = (g: number) => until(async () => ((await plugin()).generation >= g ? true : undefined), 15_000, 20);
  /** Waits until at least `count` sends reach the provider and stay unanswered; takes them. */
  const inFlight = async (count: number) => {
    await until(() => held.length >= count, 15_000, 10);
    const taken = held;
    held = [];
    return taken;
  };
  // Each answer is given only after the change: these sends are in flight across it.
  const acrossChanges: string[] = [];

  const underFirst = await inFlight(10);
  writeAtomically(JSON.stringify({ ...base, id: ID, version: '1.0.1' }));
  await generationAtLeast(2);
  assert.ok(underFirst.every((s) => !sidOf.has(s.jobId)), 'the first generation\'s sends were still unanswered at the reload');
  for (const s of underFirst) s.answer();
  acrossChanges.push(...underFirst.map((s) => s.jobId));

  const underSecond = await inFlight(5);
  writeAtomically('{ "manifestVersion": 1, "id": "faxpipe-load", ');
  const broken = await until(async () => {
    const p = await plugin();
    return p.diagnostics.some((d: any) => d.code === 'invalid-json') ? p : undefined;
  }, 5000, 20);
  assert.is(broken.state, 'active', 'the last good generation keeps serving');
  assert.is(broken.generation, 2);
  for (const s of underSecond) s.answer();
  acrossChanges.push(...underSecond.map((s) => s.jobId));

  const beforeThird = await inFlight(5);
  writeAtomically(JSON.stringify({ ...base, id: ID, version: '1.0.2' }));
  await generationAtLeast(3);
  for (const s of beforeThird) s.answer();
  acrossChanges.push(...beforeThird.map((s) => s.jobId));
  holding = false;
  for (const s of held.splice(0)) s.answer();

  const responses = await Promise.all(posts);
  for (const r of responses) assert.is(r.status, 202, 'no submission failed');
  const ids = await Promise.all(responses.map(async (r) => (await r.json()).id as string));
  await until(() => provider.requests.filter((r) => r.method === 'POST').length >= TOTAL, 30_000, 50);
  const sends = provider.requests.filter((r) => r.method === 'POST');
  const perJob = new Map<string, number>();
  for (const s of sends) {
    const ref = JSON.parse(s.body.toString('utf8')).client_reference as string;
    perJob.set(ref, (perJob.get(ref) ?? 0) + 1);
  }
  for (const id of ids) assert.is(perJob.get(id), 1, `job ${id} sent exactly once`);
  assert.is(sends.length, TOTAL, 'no fax sent twice');

  // Done means accepted: the provider's id is on the job and it is in progress there (queued
  // would mean it never left the gateway).
  const views = await until(async () => {
    const all = await Promise.all(ids.map(async (id) => json(await fetch(`${gw.url}/fax/${id}`))));
    return all.every((v) => v.provider_sid) ? all : undefined;
  }, 15_000, 100).catch(async () => Promise.all(ids.map(async (id) => json(await fetch(`${gw.url}/fax/${id}`)))));
  for (const v of views) {
    assert.is(v.status, 'in_progress', `job ${v.id}: ${v.status} ${v.error ?? ''}`);
    assert.is(v.provider_sid, sidOf.get(v.id), `job ${v.id} carries the id the provider gave its send`);
  }
  for (const id of acrossChanges) assert.ok(sidOf.has(id), `a send in flight across a manifest change (${id}) was accepted`);
});

test('install from the registry, send a fax through it, uninstall: over HTTP, no restart', async () => {
  const manifestsDir = tempDir('switchboard-manifests-');
  const other = await startGateway({ MANIFESTS_DIR: manifestsDir, LOG_LEVEL: 'warn' });
  try {
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${other.url}${p}`, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
    const catalogue = await json(await call('GET', '/plugin-registry'));
    assert.is(catalogue.plugins.find((p: any) => p.id === 'faxpipe-json').installed, false);
    const installed = await call('POST', '/plugin-registry/faxpipe-json/install');
    assert.is(installed.status, 201, await installed.clone().text());
    const configured = await call('PUT', '/plugins/faxpipe-json/config', { settings: { base_url: `${provider.origin}/v1`, api_token: 'install-token' } });
    assert.is(configured.status, 200, await configured.clone().text());
    const cfg = await json(configured);
    assert.is(cfg.settings.api_token, '***');
    await until(async () => (await json(await call('GET', '/plugins/faxpipe-json'))).state === 'active', 5000, 20);
    assert.is((await call('POST', '/api/config', { FAX_BACKEND: 'faxpipe-json' })).status, 200);
    const before = provider.requests.length;
    const res = await postFax(other.url, '+15550407777', await makePdf(1));
    assert.is(res.status, 202, `${await res.clone().text()} ${other.logs.filter((l) => l.includes('"level":50')).join('\n')}`);
    const job = await json(res);
    const sent = await until(async () => {
      const j = await json(await call('GET', `/fax/${job.id}`));
      return j.provider_sid ? j : undefined;
    }, 10_000, 50);
    assert.is(sent.backend, 'faxpipe-json');
    const send = provider.requests.slice(before).find((r) => r.method === 'POST');
    assert.is(send!.headers.authorization, 'Bearer install-token');
    assert.is((await call('DELETE', '/plugin-registry/faxpipe-json')).status, 200);
    await until(async () => (await call('GET', '/plugins/faxpipe-json')).status === 404, 5000, 20);
    assert.is((await json(await call('GET', '/plugin-registry'))).plugins.find((p: any) => p.id === 'faxpipe-json').installed, false);
  } finally {
    await other.close();
    removeDir(manifestsDir);
  }
});

test.run();
