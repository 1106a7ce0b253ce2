import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, tempDir, type TestGateway } from '../../../support/gateway.js';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { startChildGateway } from '../../../support/child-gateway.js';
import { REVEAL_CONFIRMATION } from '../../../../host/platform/admin/env-snippet.js';

const BOOTSTRAP = 'bootstrap-admin-6d2f0a9e71c3';
const PROVIDER_SECRET = 'pa-secret-admin-31f7c0d2';
const NUMBERS = ['+15551234567', '+442079460123'];
let gw: TestGateway;
let persistPath: string;

const headers = (extra: Record<string, string> = {}) => ({ 'x-api-key': BOOTSTRAP, ...extra });
const get = (p: string) => fetch(`${gw.url}${p}`, { headers: headers() });
const send = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function submit(to: string): Promise<string> {
  const form = new FormData();
  form.set('to', to);
  form.set('file', new Blob([new Uint8Array(await makePdf(2))], { type: 'application/pdf' }), 'doc.pdf');
  const res = await fetch(`${gw.url}/fax`, { method: 'POST', headers: headers(), body: form });
  assert.is(res.status, 202, await res.clone().text());
  return (await json(res)).id;
}

test.before(async () => {
  const dataDir = tempDir();
  persistPath = path.join(dataDir, 'persisted', 'service.env');
  gw = await startGateway({
    ADMIN_SETTINGS_PERSIST_PATH: persistPath,
    API_KEY: BOOTSTRAP,
    AUDIT_LOG_ENABLED: 'true',
    FAX_DISABLED: 'true',
    PROVIDERA_API_SECRET: PROVIDER_SECRET,
    OPENAI_API_KEY: 'sk-test-admin-9a8b7c6d',
    REPOS: JSON.stringify({ switchboard: '.' }),
  }, { dataDir });
});
test.after(async () => {
  await gw?.close();
});

test('GET /admin/settings masks secrets and lists plugin states', async () => {
  const res = await get('/admin/settings');
  assert.is(res.status, 200);
  const text = await res.text();
  assert.not.match(text, BOOTSTRAP);
  assert.not.match(text, 'sk-test-admin-9a8b7c6d');
  const body = JSON.parse(text);
  assert.is(body.config.API_KEY, '***');
  assert.is(body.source.API_KEY, 'env');
  assert.ok(body.plugins.some((p: { id: string }) => p.id === 'providera'));
});

test('POST /admin/settings/validate names bad keys, checks the fax backend and changes nothing', async () => {
  const before = await (await get('/admin/settings')).json();
  const res = await send('POST', '/admin/settings/validate', { settings: { MAX_FILE_SIZE_MB: 'lots', NOPE: 1, FAX_BACKEND: 'providera' }, plugins: { providera: { settings: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k' } } } });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.ok, false);
  assert.equal(body.problems.map((p: { key: string }) => p.key).sort(), ['MAX_FILE_SIZE_MB', 'NOPE']);
  assert.is(body.plugins.providera.ok, false);
  const after = await (await get('/admin/settings')).json();
  assert.equal(after.config, before.config);
  assert.is((await send('POST', '/admin/settings/validate', { settings: 'x' })).status, 422);
});

test('POST /admin/settings/validate names what PUT /admin/settings would refuse, and passes what it would store', async () => {
  const envOnly = { settings: { DATA_DIR: '/elsewhere' } };
  const verdict = await json(await send('POST', '/admin/settings/validate', envOnly));
  assert.equal(verdict.problems.map((p: { key: string }) => p.key), ['DATA_DIR']);
  const put = await send('PUT', '/admin/settings', envOnly);
  assert.is(put.status, 422);
  assert.match((await json(put)).detail, /DATA_DIR/);
  // a nested section, as PUT takes it
  const nested = await json(await send('POST', '/admin/settings/validate', { settings: { system_one: { timeout_s: 12 } } }));
  assert.equal(nested.problems, []);
});

test('PUT /admin/settings applies live and reports changes and env overrides', async () => {
  let res = await send('PUT', '/admin/settings', { settings: { MAX_FILE_SIZE_MB: 12, API_KEY: 'other' } });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.ok(body.changed.includes('MAX_FILE_SIZE_MB'));
  assert.equal(body.env_overridden, ['API_KEY']);
  assert.is(gw.gateway.config.get('MAX_FILE_SIZE_MB'), 12);
  assert.is(body.config.API_KEY, '***');
  res = await send('PUT', '/admin/settings', { settings: { MAX_FILE_SIZE_MB: -1 } });
  assert.is(res.status, 422);
  assert.match((await json(res)).detail, 'MAX_FILE_SIZE_MB');
  res = await send('POST', '/admin/settings/reload');
  assert.is(res.status, 200);
  const reloaded = await json(res);
  assert.ok(Array.isArray(reloaded.plugins));
  assert.equal(reloaded.changed, [], 'nothing changed since: REPOS (an object) is not reported either');
});

test('export masks secrets unless revealed with the confirmation; persist is off until configured', async () => {
  let res = await get('/admin/settings/export');
  assert.is(res.status, 200);
  let text = await res.text();
  assert.match(text, 'API_KEY=***');
  assert.not.match(text, BOOTSTRAP);
  assert.match(text, 'MAX_FILE_SIZE_MB=12');
  assert.is((await get('/admin/settings/export?reveal=true')).status, 400);
  res = await get(`/admin/settings/export?reveal=true&confirm=${encodeURIComponent(REVEAL_CONFIRMATION)}`);
  text = await res.text();
  assert.match(text, `API_KEY=${BOOTSTRAP}`);
  // The persist path names a file on the server: settable in the environment only.
  const refused = await send('PUT', '/admin/settings', { settings: { ADMIN_SETTINGS_PERSIST_PATH: '/tmp/elsewhere.env' } });
  assert.is(refused.status, 422);
  assert.match((await json(refused)).detail, /ADMIN_SETTINGS_PERSIST_PATH: can only be set in the environment/);
  res = await send('POST', '/admin/settings/persist');
  assert.is(res.status, 200, await res.clone().text());
  assert.is((await json(res)).path, persistPath);
  const written = readFileSync(persistPath, 'utf8');
  assert.match(written, 'MAX_FILE_SIZE_MB=12');
  assert.is(statSync(persistPath).mode & 0o777, 0o600);
});

test('admin fax-job views mask numbers, filter, paginate and stream the PDF', async () => {
  const ids = [await submit(NUMBERS[0]!), await submit(NUMBERS[1]!), await submit(NUMBERS[0]!)];
  let res = await get('/admin/fax-jobs?limit=2');
  assert.is(res.status, 200);
  let text = await res.text();
  for (const n of NUMBERS) assert.not.match(text, n.slice(1));
  let page = JSON.parse(text);
  assert.is(page.jobs.length, 2);
  assert.is(page.jobs[0].to, '***4567');
  assert.type(page.next_cursor, 'string');
  res = await get(`/admin/fax-jobs?limit=2&cursor=${page.next_cursor}`);
  page = await json(res);
  assert.is(page.jobs.length, 1);
  assert.is(page.next_cursor, null);
  assert.is((await json(await get('/admin/fax-jobs?status=disabled&backend=providera'))).jobs.length, 3);
  assert.is((await json(await get('/admin/fax-jobs?status=FAILED'))).jobs.length, 0);
  assert.is((await json(await get(`/admin/fax-jobs?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`))).jobs.length, 0);
  assert.is((await get('/admin/fax-jobs?cursor=garbage')).status, 400);
  assert.is((await get('/admin/fax-jobs?status=nope')).status, 400);
  res = await get(`/admin/fax-jobs/${ids[1]}`);
  text = await res.text();
  assert.not.match(text, NUMBERS[1]!.slice(1));
  const detail = JSON.parse(text);
  assert.is(detail.to, '***0123');
  assert.is(detail.dispatch_state, 'done');
  assert.is(detail.attempts, 0);
  assert.is(detail.pdf_available, true);
  res = await get(`/admin/fax-jobs/${ids[1]}/pdf`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/pdf');
  assert.is(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  assert.is((await get('/admin/fax-jobs/nope')).status, 404);
  assert.is((await get('/admin/fax-jobs/nope/pdf')).status, 404);
});

test('health-status, db-status and diagnostics answer without secrets', async () => {
  let res = await get('/admin/health-status');
  assert.is(res.status, 200);
  assert.ok(Array.isArray((await json(res)).plugins));
  res = await get('/admin/db-status');
  const db = await json(res);
  assert.is(db.dialect, 'sqlite');
  assert.is(db.connected, true);
  assert.ok(db.jobs_by_status.disabled >= 3);
  res = await send('POST', '/admin/diagnostics/run');
  const text = await res.text();
  assert.is(res.status, 200);
  for (const secret of [BOOTSTRAP, PROVIDER_SECRET, 'sk-test-admin-9a8b7c6d']) assert.not.match(text, secret);
  const diag = JSON.parse(text);
  assert.type(diag.versions.node, 'string');
  assert.is(diag.settings.api_keys_required, true);
});

test('GET /admin/logs filters audit records; /admin/logs/tail streams new ones with heartbeats', async () => {
  let body = await json(await get('/admin/logs?event=settings_changed&limit=5'));
  assert.ok(body.records.length >= 1);
  assert.ok(body.records.every((r: { event: string }) => r.event === 'settings_changed'));
  assert.is((await get('/admin/logs?limit=0')).status, 400);
  const abort = new AbortController();
  const res = await fetch(`${gw.url}/admin/logs/tail?event=key_minted&heartbeat_seconds=1`, { headers: headers(), signal: abort.signal });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'text/event-stream');
  const reader = res.body!.getReader();
  let seen = '';
  const read = async (until: string) => {
    while (!seen.includes(until)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
  };
  await read('tail open');
  await send('POST', '/admin/api-keys', { name: 'tailed', scopes: ['fax:read'] });
  await read('event: audit');
  assert.match(seen, '"event":"key_minted"');
  await read(': heartbeat');
  abort.abort();
  body = await json(await get('/admin/logs?event=key_minted'));
  assert.is(body.records.length, 1);
});

test('POST /admin/restart is refused unless allowed; allowed, it answers 202, drains and the process exits 0', async () => {
  assert.is((await send('POST', '/admin/restart')).status, 403);
  // A real gateway process: the exit code is the one its supervisor would see.
  const dataDir = tempDir();
  const child = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), API_KEY: BOOTSTRAP, ADMIN_ALLOW_RESTART: 'true', AUDIT_LOG_ENABLED: 'true', FAX_DISABLED: 'true' });
  try {
    // Without ADMIN_SETTINGS_PERSIST_PATH, persist is off.
    assert.is((await fetch(`${child.url}/admin/settings/persist`, { method: 'POST', headers: headers() })).status, 403);
    const res = await fetch(`${child.url}/admin/restart`, { method: 'POST', headers: headers() });
    assert.is(res.status, 202);
    assert.equal(await json(res), { status: 'restarting' });
    const bounded = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the gateway did not exit after /admin/restart:\n${child.output()}`)), 20_000).unref());
    const exit = await Promise.race([child.exited, bounded]);
    assert.equal(exit, { code: 0, signal: null }, child.output());
    const refused = await fetch(`${child.url}/health`).then(() => false, () => true);
    assert.ok(refused, 'the server stopped listening');
  } finally {
    await child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('no audit record or log line holds a full number, a secret or a token', async () => {
  await gw.gateway.audit.flush();
  const rows = await gw.gateway.database.db.selectFrom('audit_events').select('record').execute();
  const everything = [...rows.map((r) => r.record), ...gw.logs].join('\n');
  for (const n of NUMBERS) assert.not.match(everything, n.slice(1));
  for (const secret of [BOOTSTRAP, PROVIDER_SECRET, 'sk-test-admin-9a8b7c6d', 'sbk_']) assert.not.match(everything, secret);
  assert.ok(existsSync(persistPath));
});

test.run();
