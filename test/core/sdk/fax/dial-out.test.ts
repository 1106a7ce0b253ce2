import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { FAX_STATUS_EVENT, NotAcceptedError, RejectedError, UncertainOutcomeError, type FaxStatusUpdate, type PluginLogger } from 'switchboard/sdk';
import { dialableNumber, dialOut, FaxResultTable, LineNoReplyError, LineNotConnectedError, PbxFax } from 'switchboard/sdk/fax';
import { storeJobDocument, type StoredJob } from '../../../host/surfaces/fax/documents/stored-job.js';

const logger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };
const jobs: StoredJob[] = [];
let stored: StoredJob;

test.before(async () => {
  stored = await storeJobDocument({ pages: 2 });
  jobs.push(stored);
});
test.after(async () => {
  for (const job of jobs) await job.cleanup();
});

function table(updates: FaxStatusUpdate[] = [], timeoutMs = 60_000): FaxResultTable {
  return FaxResultTable.emitting({ logger, events: { emit: (topic: string, update: unknown) => void (topic === FAX_STATUS_EVENT && updates.push(update as FaxStatusUpdate)) } }, timeoutMs);
}

const request = (to = '+15551234567') => ({ jobId: stored.jobId, to, document: stored.document, publicBaseUrl: 'http://127.0.0.1:8080' });

test('renders the real TIFF, registers the fax before dialling, and returns the PBX id', async () => {
  const results = table();
  let seen: { path: string; pages: number; dest: string; open: boolean } | undefined;
  const sent = await dialOut(request(' +15551234567 '), {
    pbx: 'Toy PBX',
    line: { ready: true },
    paper: 'a4',
    results,
    logger,
    async dial(tiff, dest) {
      seen = { path: tiff.localPath, pages: tiff.pages, dest, open: results.isOpen(stored.jobId) };
      return 'call-1';
    },
  });
  assert.ok(seen && existsSync(seen.path), 'a TIFF file was rendered');
  assert.equal({ pages: seen!.pages, dest: seen!.dest, open: seen!.open }, { pages: 2, dest: '+15551234567', open: true });
  assert.equal(sent, { status: 'in_progress', providerSid: 'call-1', pages: 2 });
  assert.is(results.jobIdOf('call-1'), stored.jobId);
  results.dispose();
});

test('an event that beats the reply ends the fax, and the send returns that end', async () => {
  const updates: FaxStatusUpdate[] = [];
  const results = table(updates);
  const sent = await dialOut(request(), {
    pbx: 'Toy PBX',
    line: { ready: true },
    paper: 'letter',
    results,
    logger,
    async dial() {
      results.link(stored.jobId, 'call-2');
      results.finish(stored.jobId, { status: 'FAILED', error: 'busy', raw: 'busy' });
      return 'call-2';
    },
  });
  assert.is(sent.status, 'FAILED');
  assert.is(sent.error, 'busy');
  assert.equal(updates.map((u) => u.status), ['FAILED']);
  results.dispose();
});

test('nothing is dialled for a bad number or a lost session; a failed dial leaves no entry', async () => {
  const results = table();
  let dialled = 0;
  const options = (ready: boolean, dial: () => Promise<string>) => ({ pbx: 'Toy PBX', line: { ready }, paper: 'letter' as const, results, logger, dial: async () => (dialled++, dial()) });
  const badNumber = await dialOut(request('+1 555; Dial(x)'), options(true, async () => 'x')).catch((e: Error) => e);
  assert.instance(badNumber, RejectedError);
  const offline = await dialOut(request(), options(false, async () => 'x')).catch((e: Error) => e);
  assert.instance(offline, NotAcceptedError);
  assert.match((offline as Error).message, /not connected to Toy PBX/);
  assert.is(dialled, 0);
  const unanswered = await dialOut(request(), options(true, async () => { throw new UncertainOutcomeError('no reply'); })).catch((e: Error) => e);
  assert.instance(unanswered, UncertainOutcomeError);
  assert.is(dialled, 1);
  assert.not.ok(results.isOpen(stored.jobId));
  assert.is(results.status(stored.jobId), null);
  const lostBeforeWrite = await dialOut(request(), options(true, async () => { throw new LineNotConnectedError('down'); })).catch((e: Error) => e);
  assert.instance(lostBeforeWrite, NotAcceptedError, 'a command that could not be written dialled nothing');
  const noReply = await dialOut(request(), options(true, async () => { throw new LineNoReplyError('no reply within 5 ms'); })).catch((e: Error) => e);
  assert.instance(noReply, UncertainOutcomeError, 'a written command without reply may have dialled');
  assert.match((noReply as Error).message, /sent to Toy PBX but not answered: no reply within 5 ms/);
  assert.not.ok(results.isOpen(stored.jobId));
  results.dispose();
});

test('a document that cannot be rendered is NotAccepted; dialable numbers', async () => {
  const broken = { ...stored.document, renderTiff: () => stored.document.renderTiff({ paper: 'letter' }).then(() => { throw new Error('gs crashed'); }) };
  const err = await dialOut({ ...request(), document: broken }, { pbx: 'Toy PBX', line: { ready: true }, paper: 'letter', results: table(), logger, dial: async () => 'x' }).catch((e: Error) => e);
  assert.instance(err, NotAcceptedError);
  assert.match((err as Error).message, /could not be rendered: gs crashed/);
  assert.is(dialableNumber('5551234'), '5551234');
  for (const bad of ['12345', '+1555123456789012345678', '555-1234', '+1555 1234']) assert.throws(() => dialableNumber(bad), (err: unknown) => err instanceof RejectedError, bad);
});

test('the result table times out an accepted fax and fails the pending on a lost session', async () => {
  const updates: FaxStatusUpdate[] = [];
  const results = table(updates, 30);
  results.expect('j1', 1);
  results.accept('j1');
  results.expect('j2', 1, 'sid-2');
  results.accept('j2');
  results.failPending('line lost');
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(updates.map((u) => [u.jobId, u.error]), [['j1', 'line lost'], ['j2', 'line lost']]);
  results.expect('j3', 1);
  results.accept('j3');
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(updates.at(-1), { jobId: 'j3', status: 'FAILED', pages: 1, error: 'timeout waiting for fax result', raw: 'timeout' });
  results.dispose();
});

test('a PBX generation: dials into its table, fails the faxes of a lost session, closes the line once at stop', async () => {
  const updates: FaxStatusUpdate[] = [];
  const lostListeners: Array<(reason: string) => void> = [];
  let closed = 0;
  let disposers: Array<() => unknown> = [];
  let extraStopped = 0;
  const line = { ready: true, onConnectionLost: (l: (reason: string) => void) => (lostListeners.push(l), () => {}), close: async () => void closed++ };
  const ctx = { logger, events: { emit: (_topic: string, update: unknown) => void updates.push(update as FaxStatusUpdate) }, onDispose: (fn: () => unknown) => void disposers.push(fn) };
  const pbx = new PbxFax(ctx, { pbx: 'Toy PBX', line, paper: 'letter', resultTimeoutMs: 60_000, dial: async () => 'call-7', onStop: () => void extraStopped++ });
  assert.is(pbx.provider.pushesResults, true);
  const sent = await pbx.provider.send(request());
  assert.is(sent.providerSid, 'call-7');
  assert.equal(await pbx.provider.status({ jobId: stored.jobId, to: '+1', sentAt: new Date() }), { providerSid: 'call-7', status: 'in_progress', pages: 2 });
  for (const listener of lostListeners) listener('TOY connection lost');
  assert.equal(updates.map((u) => [u.jobId, u.status, u.error]), [[stored.jobId, 'FAILED', 'TOY connection lost']]);
  await pbx.stop();
  for (const fn of disposers) await fn();
  assert.is(closed, 1, 'stop and dispose close the line once');
  assert.is(extraStopped, 1);
  disposers = [];
});

test.run();
