import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { faxDirectionsOf, RejectedError, UncertainOutcomeError, type FaxProvider, type FaxWebhookRequest } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import faxSim from '../../../plugins/fax-sim/index.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../fakes/fax-document-server.js';
import { closeServer, listen } from '../../fakes/hosted-fax-fake-kit.js';
import { removeDir, tempDir, until } from '../../support/gateway.js';

/**
 * The simulator against the real plugin wiring: a loopback server stands in for the gateway's
 * callback route and records what the simulator posts there.
 */
const SECRET = 'sim-test-secret-0123456789abcdef';
const DELAY = 40;

interface Posted {
  url: string;
  body: Buffer;
  headers: IncomingMessage['headers'];
}

let documents: FaxDocumentServer;
let gateway: Server;
let gatewayUrl: string;
const posted: Posted[] = [];
const started: StartedPlugin[] = [];
const dirs: string[] = [];

async function startSim(settings: Record<string, unknown> = { secret: SECRET, delayMs: DELAY }, dataDir = tempDir('fax-sim-')): Promise<{ plugin: StartedPlugin; fax: FaxProvider }> {
  dirs.push(dataDir);
  const plugin = await startPlugin(faxSim, { pluginId: 'fax-sim', settings, dataDir });
  started.push(plugin);
  return { plugin, fax: plugin.instance.providers.fax! };
}

async function request(jobId: string, to: string, pages = 2) {
  return { jobId, to, document: documents.document(jobId, await makePdf(pages), pages), publicBaseUrl: gatewayUrl, callbackUrl: `${gatewayUrl}/webhooks/fax-sim/callback?job_id=${jobId}` };
}

/** A callback as the gateway hands it to the plugin. */
function asWebhook(p: Posted, kind: 'callback' | 'inbound' = 'callback'): FaxWebhookRequest {
  const url = new URL(p.url, gatewayUrl);
  return { kind, url: url.href, rawBody: p.body, contentType: 'application/json', headers: { 'x-fax-sim-signature': p.headers['x-fax-sim-signature'] as string }, query: Object.fromEntries(url.searchParams) };
}

const callbacksOf = (jobId: string) => posted.filter((p) => p.url.endsWith(`job_id=${jobId}`));
const wordsOf = (jobId: string) => callbacksOf(jobId).map((p) => JSON.parse(p.body.toString()).status as string);

test.before(async () => {
  documents = await startFaxDocumentServer();
  gateway = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push({ url: req.url ?? '', body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  gatewayUrl = await listen(gateway);
});
test.after(async () => {
  for (const plugin of started) await plugin.stop();
  await closeServer(gateway);
  await documents.close();
  for (const dir of dirs) removeDir(dir);
});

test('a number ending 0001 is accepted, then sending and delivered come as signed callbacks with the document pages', async () => {
  const { fax } = await startSim();
  const sent = await fax.send(await request('job-0001', '+15550000001', 3));
  assert.is(sent.status, 'queued');
  assert.ok(sent.providerSid.startsWith('sim-'));
  await until(() => wordsOf('job-0001').includes('delivered'), 5000, 10);
  assert.equal(wordsOf('job-0001'), ['sending', 'delivered']);
  const last = callbacksOf('job-0001').at(-1)!;
  assert.ok(await fax.verifyWebhook!(asWebhook(last)));
  assert.not.ok(await fax.verifyWebhook!({ ...asWebhook(last), headers: { 'x-fax-sim-signature': createHmac('sha256', 'other-secret').update(last.body).digest('hex') } }));
  const update = await fax.parseCallback!(asWebhook(last));
  assert.equal(update, { jobId: 'job-0001', status: 'SUCCESS', providerSid: sent.providerSid, pages: 3, raw: 'delivered' });
  assert.equal(await fax.status({ jobId: 'job-0001', to: '+15550000001', providerSid: sent.providerSid, sentAt: new Date() }), { providerSid: sent.providerSid, status: 'SUCCESS', pages: 3, raw: 'delivered' });
});

test('any other number is delivered too', async () => {
  const { fax } = await startSim();
  await fax.send(await request('job-other', '5551234567', 1));
  await until(() => wordsOf('job-other').includes('delivered'), 5000, 10);
});

test('a number ending 0002 is busy on its first attempt (a failure whose error says busy) and delivered on the next', async () => {
  const { fax } = await startSim();
  await fax.send(await request('job-0002', '+15550000002'));
  await until(() => wordsOf('job-0002').includes('busy'), 5000, 10);
  const busy = await fax.parseCallback!(asWebhook(callbacksOf('job-0002').at(-1)!));
  assert.is(busy.status, 'FAILED');
  assert.is(busy.raw, 'busy');
  assert.ok(busy.error!.startsWith('busy'), busy.error);
  await fax.send(await request('job-0002', '+15550000002'));
  await until(() => wordsOf('job-0002').includes('delivered'), 5000, 10);
  assert.is((await fax.status({ jobId: 'job-0002', to: '+15550000002', sentAt: new Date() }))!.status, 'SUCCESS');
});

test('a number ending 0003 fails with a provider error', async () => {
  const { fax } = await startSim();
  await fax.send(await request('job-0003', '+15550000003'));
  await until(() => wordsOf('job-0003').includes('failed'), 5000, 10);
  const update = await fax.parseCallback!(asWebhook(callbacksOf('job-0003').at(-1)!));
  assert.is(update.status, 'FAILED');
  assert.ok(update.error!.includes('simulated provider error'), update.error);
  assert.is(update.pages, undefined);
});

test('a number ending 0004 throws an uncertain outcome after accepting; a lookup by job finds the fax, and no callback is posted', async () => {
  const { fax } = await startSim();
  const err = await fax.send(await request('job-0004', '+15550000004')).catch((e: unknown) => e);
  assert.instance(err, UncertainOutcomeError);
  const found = await fax.status({ jobId: 'job-0004', to: '+15550000004', sentAt: new Date() });
  assert.ok(found?.providerSid?.startsWith('sim-'));
  await until(async () => (await fax.status({ jobId: 'job-0004', to: '+15550000004', sentAt: new Date() }))?.status === 'SUCCESS', 5000, 10);
  assert.equal(callbacksOf('job-0004'), []);
  assert.is(await fax.status({ jobId: 'never-sent', to: '+15550000004', sentAt: new Date() }), null);
});

test('the faxes live in the plugin store, not the process: a generation that did not send one finds it, its outcome, and its attempts', async () => {
  const shared = tempDir('fax-sim-shared-');
  const first = await startSim({ secret: SECRET, delayMs: DELAY }, shared);
  const sent = await first.fax.send(await request('job-moved', '+15550000002'));
  await first.plugin.stop();
  started.splice(started.indexOf(first.plugin), 1);
  // Another process of the cluster: same store, nothing in memory. Its timeline runs on without the sender.
  const other = await startSim({ secret: SECRET, delayMs: DELAY }, shared);
  const found = await until(async () => {
    const s = await other.fax.status({ jobId: 'job-moved', to: '+15550000002', sentAt: new Date() });
    return s?.raw === 'busy' ? s : undefined;
  }, 5000, 10);
  assert.is(found.providerSid, sent.providerSid);
  assert.is(found.lineFailure, 'busy');
  // The redial from the other process is the job's second attempt: delivered.
  const again = await other.fax.send(await request('job-moved', '+15550000002'));
  assert.is.not(again.providerSid, sent.providerSid);
  await until(async () => (await other.fax.status({ jobId: 'job-moved', to: '+15550000002', sentAt: new Date() }))?.status === 'SUCCESS', 5000, 10);
  assert.is((await other.fax.status({ jobId: 'job-moved', to: '+15550000002', providerSid: sent.providerSid, sentAt: new Date() }))!.raw, 'busy', 'the first attempt is still found by its sid');
  assert.is(await other.plugin.ctx.storage.get('faxes/never-sent.json'), null);
  // The store is the plugin's own key space: no way out of it.
  assert.is(((await other.plugin.ctx.storage.get('../fax-sim/faxes/job-moved.json').catch((e: unknown) => e)) as Error).name, 'StorageKeyError');
});

test('a document that is not a PDF is rejected', async () => {
  const { fax } = await startSim();
  const bad = { ...(await request('job-bad', '+15550000001')), document: { ...(await request('job-bad', '+15550000001')).document, read: async () => Buffer.from('plain text') } };
  assert.instance(await fax.send(bad).catch((e: unknown) => e), RejectedError);
});

test('a cancelled fax stays cancelled', async () => {
  const { fax } = await startSim({ secret: SECRET, delayMs: 5000 });
  const sent = await fax.send(await request('job-cancel', '+15550000001'));
  await fax.cancel!({ jobId: 'job-cancel', to: '+15550000001', providerSid: sent.providerSid, sentAt: new Date() });
  assert.is((await fax.status({ jobId: 'job-cancel', to: '+15550000001', sentAt: new Date() }))!.raw, 'canceled');
});

test('with no settings it starts for both directions, with a secret generated once per data directory (owner-only) and kept', async () => {
  const dataDir = tempDir('fax-sim-secret-');
  const { plugin, fax } = await startSim({}, dataDir);
  assert.equal(faxDirectionsOf(fax), ['inbound', 'outbound']);
  const file = path.join(dataDir, 'fax-sim', 'secret');
  const secret = readFileSync(file, 'utf8').trim();
  assert.is(secret.length, 64);
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(((await plugin.instance.health!()).info as { secret: string }).secret, 'file');
  await plugin.stop();
  await startSim({}, dataDir);
  assert.is(readFileSync(file, 'utf8').trim(), secret);
});

test('an injected inbound fax signed with the secret is parsed; its document is the PDF given', async () => {
  const { fax } = await startSim();
  const pdf = await makePdf(2);
  const body = Buffer.from(JSON.stringify({ id: 'in-1', from: '+15550000009', to: '+15550000001', pdf_base64: pdf.toString('base64') }));
  const signed = asWebhook({ url: '/webhooks/fax-sim/inbound', body, headers: { 'x-fax-sim-signature': createHmac('sha256', SECRET).update(body).digest('hex') } }, 'inbound');
  assert.ok(await fax.verifyWebhook!(signed));
  assert.not.ok(await fax.verifyWebhook!({ ...signed, headers: {} }));
  const notice = await fax.parseInbound!(signed);
  assert.is(notice.providerId, 'in-1');
  assert.ok('read' in notice.document);
  const document = notice.document as { read(max: number): Promise<Buffer> };
  assert.equal(await document.read(10_000_000), pdf);
  const tooLarge = await document.read(10).catch((e: unknown) => e);
  assert.is((tooLarge as { status?: number }).status, 413);
});

test.run();
