import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { ArtifactCleanup } from '../../../../../host/surfaces/fax/cleanup/artifact-cleanup.js';
import { APPROVAL_SWEEP_GRACE_MS } from '../../../../../host/surfaces/fax/jobs/fax-approvals.js';
import type { ScheduleTimers } from '../../../../../host/platform/runtime/recurring-task.js';
import { gatewayDb } from '../../../../support/database.js';
import { gatewayConfig } from '../../../../support/gateway-config.js';

// Sending by approval over plain HTTP: POST /fax/prepare, then POST /fax/approvals/{id}/send.
const BOOT = 'approval-boot-key-5b1e';
const NUMBER = '+15550107777';
let gw: TestGateway;
let otherSender: string;
let readOnly: string;

const form = (to: string | undefined, file: Buffer) => {
  const body = new FormData();
  if (to !== undefined) body.set('to', to);
  body.set('file', new Blob([new Uint8Array(file)]), 'doc.pdf');
  return body;
};
const prepare = (file: Buffer, to: string | undefined = NUMBER, key = BOOT) => fetch(`${gw.url}/fax/prepare`, { method: 'POST', body: form(to, file), headers: { 'X-API-Key': key } });
const send = (id: string, body: Record<string, unknown> = {}, key = BOOT) =>
  fetch(`${gw.url}/fax/approvals/${encodeURIComponent(id)}/send`, { method: 'POST', body: JSON.stringify(body), headers: { 'X-API-Key': key, 'content-type': 'application/json' } });
const jobCount = async () => Object.values(await gw.gateway.surfaces.fax.store.countByStatus()).reduce((sum, n) => sum + Number(n), 0);

async function mint(scopes: string[]): Promise<string> {
  const res = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': BOOT }, body: JSON.stringify({ name: scopes.join('+'), scopes }) });
  assert.is(res.status, 201);
  return (await json(res)).token;
}

test.before(async () => {
  gw = await startGateway({ FAX_DISABLED: 'true', API_KEY: BOOT, LOG_LEVEL: 'warn' });
  otherSender = await mint(['fax:send']);
  readOnly = await mint(['fax:read']);
});
test.after(async () => {
  await gw.close();
});

test('prepare answers a preview and sends nothing; send sends exactly that document to that number, once', async () => {
  const pdf = await makePdf(2);
  const before = await jobCount();
  const res = await prepare(pdf, '+1 555 010 7777');
  assert.is(res.status, 201, await res.clone().text());
  const preview = await json(res);
  assert.is(preview.pages, 2);
  assert.is(preview.to, '***7777');
  assert.is(preview.size_bytes, pdf.length);
  assert.is(preview.sha256, createHash('sha256').update(pdf).digest('hex'));
  assert.ok(Date.parse(preview.expires_at) > Date.now());
  assert.is(await jobCount(), before, 'preparing sends nothing');
  const sent = await send(preview.approval_id, { to: NUMBER, sha256: preview.sha256 });
  assert.is(sent.status, 202, await sent.clone().text());
  const job = await json(sent);
  assert.is(job.pages, 2);
  const stored = await gw.gateway.surfaces.fax.store.get(job.id);
  assert.is(stored!.to_number, NUMBER);
  assert.is(stored!.document_sha256, preview.sha256, 'the job carries the approved document');
  const storedBytes = await gw.gateway.kernel.withProvider('storage', gw.gateway.config.get('STORAGE_BACKEND'), (s) => s.get(stored!.pdf_key));
  assert.is(createHash('sha256').update(storedBytes).digest('hex'), preview.sha256, 'what the job sends is byte for byte the approved document');
  const again = await send(preview.approval_id);
  assert.is(again.status, 409);
  assert.is((await json(again)).code, 'approval_used');
  assert.is(await jobCount(), before + 1, 'sent once');
});

test('send_at schedules the approved fax; a time refused leaves the approval unspent', async () => {
  const preview = await json(await prepare(await makePdf(1)));
  const past = await send(preview.approval_id, { send_at: new Date(Date.now() - 60_000).toISOString() });
  assert.is(past.status, 400);
  assert.is((await json(past)).code, 'send_at_out_of_range');
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const sent = await send(preview.approval_id, { send_at: at });
  assert.is(sent.status, 202, await sent.clone().text());
  const job = await json(sent);
  assert.is(job.send_at, at);
});

test('an approval is bound to its number, its document and its key', async () => {
  const preview = await json(await prepare(await makePdf(1)));
  const otherNumber = await send(preview.approval_id, { to: '+15550109999' });
  assert.is(otherNumber.status, 422);
  const mismatch = await json(otherNumber);
  assert.is(mismatch.code, 'approval_mismatch');
  assert.match(mismatch.detail, /another number/);
  assert.not.ok(mismatch.detail.includes('5550107777'), 'the number stays masked');
  const otherDocument = await send(preview.approval_id, { sha256: createHash('sha256').update(await makePdf(3)).digest('hex') });
  assert.is(otherDocument.status, 422);
  assert.match((await json(otherDocument)).detail, /another document/);
  const otherKey = await send(preview.approval_id, {}, otherSender);
  assert.is(otherKey.status, 404);
  assert.is((await json(otherKey)).code, 'approval_unknown');
  assert.is((await send('made-up')).status, 404);
  const badBody = await send(preview.approval_id, { sha256: 'xyz' });
  assert.is(badBody.status, 422);
  // None of these spent it.
  assert.is((await send(preview.approval_id, { to: NUMBER })).status, 202);
});

test('a stored document changed after approval is refused with a code and sends nothing; the approval is not spent', async () => {
  const pdf = await makePdf(1);
  const preview = await json(await prepare(pdf));
  const db = gatewayDb(gw.gateway);
  const { document_key } = await db.selectFrom('fax_approvals').select('document_key').where('id', '=', preview.approval_id).executeTakeFirstOrThrow();
  const storage = <T>(fn: (s: import('../../../../../core/sdk/index.js').StorageProvider) => Promise<T>) => gw.gateway.kernel.withProvider('storage', gw.gateway.config.get('STORAGE_BACKEND'), fn);
  // Someone with write access to the bucket swaps the object for another document.
  await storage((s) => s.put(document_key, Buffer.concat([pdf, Buffer.from('\n% appended after approval\n')])));
  const before = await jobCount();
  const changed = await send(preview.approval_id, { to: NUMBER });
  assert.is(changed.status, 409, await changed.clone().text());
  assert.is((await json(changed)).code, 'approval_document_changed');
  assert.is(await jobCount(), before, 'nothing was sent');
  // The approved bytes back in place: the same approval sends.
  await storage((s) => s.put(document_key, pdf));
  assert.is((await send(preview.approval_id, { to: NUMBER })).status, 202);
});

test('an expired approval is refused', async () => {
  await gw.gateway.config.update({ MCP_APPROVAL_TTL_SECONDS: 1 });
  try {
    const preview = await json(await prepare(await makePdf(1)));
    const expiresAt = Date.parse(preview.expires_at);
    await until(() => Date.now() > expiresAt + 50, 10_000, 50);
    const expired = await send(preview.approval_id);
    assert.is(expired.status, 410);
    assert.is((await json(expired)).code, 'approval_expired');
  } finally {
    await gw.gateway.config.update({ MCP_APPROVAL_TTL_SECONDS: 600 });
  }
});

test('scopes, bad input, and FAX_REQUIRE_APPROVAL refusing one-step POST /fax', async () => {
  const pdf = await makePdf(1);
  const noScope = await prepare(pdf, NUMBER, readOnly);
  assert.is(noScope.status, 403);
  assert.is((await json(noScope)).code, 'insufficient_scope');
  const badNumber = await prepare(pdf, 'call me');
  assert.is(badNumber.status, 400);
  assert.is((await json(badNumber)).code, 'validation_error');
  const noNumber = await fetch(`${gw.url}/fax/prepare`, { method: 'POST', body: form(undefined, pdf), headers: { 'X-API-Key': BOOT } });
  assert.is(noNumber.status, 400);
  const notADocument = await prepare(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe]));
  assert.ok([400, 415].includes(notADocument.status), String(notADocument.status));

  const oneStep = () => fetch(`${gw.url}/fax`, { method: 'POST', body: form(NUMBER, pdf), headers: { 'X-API-Key': BOOT } });
  assert.is((await oneStep()).status, 202, 'allowed by default');
  await gw.gateway.config.update({ FAX_REQUIRE_APPROVAL: true });
  try {
    const refused = await oneStep();
    assert.is(refused.status, 403);
    assert.is((await json(refused)).code, 'approval_required');
    const preview = await json(await prepare(pdf));
    assert.is((await send(preview.approval_id)).status, 202, 'by approval it sends');
  } finally {
    await gw.gateway.config.update({ FAX_REQUIRE_APPROVAL: false });
  }
});

test('the scheduled cleanup sweeps spent and long-expired approvals with their documents, with no retention set', async () => {
  const db = gatewayDb(gw.gateway);
  const spent = await json(await prepare(await makePdf(1)));
  assert.is((await send(spent.approval_id)).status, 202);
  const unsent = await json(await prepare(await makePdf(1)));
  const waiting = await json(await prepare(await makePdf(1)));
  const keyOf = async (id: string) => (await db.selectFrom('fax_approvals').select('document_key').where('id', '=', id).executeTakeFirstOrThrow()).document_key;
  const unsentKey = await keyOf(unsent.approval_id);
  const exists = (key: string) => gw.gateway.kernel.withProvider('storage', gw.gateway.config.get('STORAGE_BACKEND'), (s) => s.exists(key));
  assert.ok(await exists(unsentKey), 'a prepared document is in storage');
  // The cleanup's own schedule, on a clock the test steps (the gateway's cleanup waits a day).
  let clock = Date.now();
  let due: Array<() => void> = [];
  const timers: ScheduleTimers = { now: () => clock, setTimeout: (fn) => due.push(fn), clearTimeout: () => {} };
  const { platform } = gw.gateway;
  const config = gatewayConfig(platform.config);
  const cleanup = new ArtifactCleanup({ db, kernel: platform.kernel, config, audit: platform.audit, logger: platform.logger, tmpDir: platform.tmpDir, leases: platform.leases, approvals: gw.gateway.surfaces.fax.approvals, timers });
  const retention = { ARTIFACT_TTL_DAYS: config.get('ARTIFACT_TTL_DAYS'), INBOUND_RETENTION_DAYS: config.get('INBOUND_RETENTION_DAYS') };
  await platform.config.update({ ARTIFACT_TTL_DAYS: 0, INBOUND_RETENTION_DAYS: 0 });
  cleanup.start();
  clock += config.get('CLEANUP_INTERVAL_MINUTES') * 60_000;
  // Expiry is in the database's clock, not the schedule's: set it relative to the time now.
  const now = Date.now();
  await db.updateTable('fax_approvals').set({ expires_at: now - 1 }).where('id', '=', spent.approval_id).execute();
  await db.updateTable('fax_approvals').set({ expires_at: now - APPROVAL_SWEEP_GRACE_MS - 1 }).where('id', '=', unsent.approval_id).execute();
  try {
    const fire = due;
    due = [];
    fire.forEach((fn) => fn());
    const ids = await until(async () => {
      const rows = (await db.selectFrom('fax_approvals').select('id').execute()).map((r) => r.id);
      return rows.includes(spent.approval_id) || rows.includes(unsent.approval_id) ? undefined : rows;
    }, 10_000, 50);
    assert.ok(ids.includes(waiting.approval_id), 'a waiting approval stays');
    assert.not.ok(await exists(unsentKey), 'the expired approval\'s document is gone');
    assert.ok(await exists(await keyOf(waiting.approval_id)));
  } finally {
    await cleanup.stop();
    await platform.config.update(retention);
  }
});

test('pending approvals are capped per key (FAX_APPROVALS_PENDING_PER_KEY) and per cluster: 429 with Retry-After, other keys unaffected by one key', async () => {
  const db = gatewayDb(gw.gateway);
  await db.deleteFrom('fax_approvals').execute();
  await gw.gateway.config.update({ FAX_APPROVALS_PENDING_PER_KEY: 2 });
  try {
    const pdf = await makePdf(1);
    for (let i = 0; i < 2; i++) assert.is((await prepare(pdf, NUMBER, otherSender)).status, 201);
    const over = await prepare(pdf, NUMBER, otherSender);
    assert.is(over.status, 429);
    const body = await json(over);
    assert.is(body.code, 'approvals_pending_limit');
    assert.match(body.detail, /2 of this API key/);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600, `Retry-After ${over.headers.get('retry-after')}: when the oldest expires`);
    assert.is((await prepare(pdf)).status, 201, 'another key still prepares');
    // The cluster's cap: rows of many other keys fill it, and then nobody prepares.
    await gw.gateway.config.update({ FAX_APPROVALS_PENDING_PER_KEY: 1000 });
    const now = Date.now();
    const filler = Array.from({ length: 100 }, (_, i) => ({ id: `filler-${i}`, caller: `key-${i}`, to_number: NUMBER, document_sha256: 'x', document_key: `fax-approvals/filler-${i}/document`, size_bytes: 1, pages: 1, state: 'ready', claimed_until: null, job_id: null, created_at: now, expires_at: now + 300_000 }));
    await db.insertInto('fax_approvals').values(filler).execute();
    const full = await prepare(pdf);
    assert.is(full.status, 429);
    assert.match((await json(full)).detail, /100 in the cluster/);
    assert.ok(Number(full.headers.get('retry-after')) >= 1);
  } finally {
    await db.deleteFrom('fax_approvals').execute();
    await gw.gateway.config.update({ FAX_APPROVALS_PENDING_PER_KEY: 20 });
  }
});

test('the routes are in /openapi.json with their schemas and errors', async () => {
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  const prepareOp = doc.paths['/fax/prepare'].post;
  assert.ok(prepareOp.responses['201'].content['application/json'].schema);
  for (const status of ['400', '413', '415', '429']) assert.ok(prepareOp.responses[status], status);
  const sendOp = doc.paths['/fax/approvals/{id}/send'].post;
  for (const status of ['202', '404', '409', '410', '422']) assert.ok(sendOp.responses[status], status);
  assert.ok(sendOp.requestBody.content['application/json'].schema);
  assert.ok(doc.paths['/fax'].post.responses['403']);
});

test.run();
