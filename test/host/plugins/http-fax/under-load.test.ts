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

test.before(async () => {
  provider = await startRecordingProvider();
  let n = 0;
  provider.answer((req, res) => {
    if (req.method === 'POST' && req.path === '/v1/faxes') {
      const id = `fp-${++n}`;
      // Answer a little later, so sends are in flight while the manifest changes.
      setTimeout(() => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id, status: 'queued' } })), 30);
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

  const generationAtLeast = (g: number) => until(async () => ((await plugin()).generation >= g ? true : undefined), 5000, 20);
  writeAtomically(JSON.stringify({ ...base, id: ID, version: '1.0.1' }));
  await generationAtLeast(2);
  writeAtomically('{ "manifestVersion": 1, "id": "faxpipe-load", ');
  const broken = await until(async () => {
    const p = await plugin();
    return p.diagnostics.some((d: any) => d.code === 'invalid-json') ? p : undefined;
  }, 5000, 20);
  assert.is(broken.state, 'active', 'the last good generation keeps serving');
  assert.is(broken.generation, 2);
  writeAtomically(JSON.stringify({ ...base, id: ID, version: '1.0.2' }));
  await generationAtLeast(3);

  const responses = await Promise.all(posts);
  for (const r of responses) assert.is(r.status, 202, 'no submission failed');
  const ids = await Promise.all(responses.map(async (r) => (await r.json()).id as string));
  await until(() => provider.requests.filter((r) => r.method === 'POST').length >= TOTAL, 30_000, 50);
  await new Promise((r) => setTimeout(r, 300));
  const sends = provider.requests.filter((r) => r.method === 'POST');
  assert.is(sends.length, TOTAL, 'no fax sent twice');
  const perJob = new Map<string, number>();
  for (const s of sends) {
    const ref = JSON.parse(s.body.toString('utf8')).client_reference as string;
    perJob.set(ref, (perJob.get(ref) ?? 0) + 1);
  }
  for (const id of ids) assert.is(perJob.get(id), 1, `job ${id} sent exactly once`);
  const statuses = await Promise.all(ids.map(async (id) => (await json(await fetch(`${gw.url}/fax/${id}`))).status));
  assert.ok(statuses.every((s) => s === 'in_progress' || s === 'queued' || s === 'SUCCESS'), `no job failed: ${[...new Set(statuses)].join(',')}`);
  assert.ok(statuses.every((s) => s !== 'FAILED'));
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
