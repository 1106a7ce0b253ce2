import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { FAX_STATUS_EVENT, NotAcceptedError, RejectedError, type FaxProvider, type FaxStatusUpdate } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import sip from '../../../plugins/sip/index.js';
import { createFaxDocument } from '../../../host/surfaces/fax/documents/index.js';
import { AmiFake } from '../../fakes/ami-fake.js';
import { storeJobDocument, type StoredJob } from '../../host/surfaces/fax/documents/stored-job.js';
import { readTiffPages, TIFF_COMPRESSION } from '../../host/surfaces/fax/documents/tiff-directory.js';

const PASSWORD = 'amisecret';
let fake: AmiFake;
const started: StartedPlugin[] = [];
const jobs: StoredJob[] = [];
const logLines: string[] = [];

async function startSip(settings: Record<string, unknown> = {}): Promise<{ plugin: StartedPlugin; fax: FaxProvider }> {
  const plugin = await startPlugin(sip, {
    pluginId: 'sip',
    settings: { host: '127.0.0.1', port: fake.port, username: 'switchboard', password: PASSWORD, pingIntervalMs: 0, ...settings },
    env: { FAX_HEADER: 'ACME Clinic, Fax (main)', FAX_LOCAL_STATION_ID: '+15550001111' },
    logLines,
  });
  started.push(plugin);
  return { plugin, fax: plugin.instance.providers.fax! };
}

async function job(pages: number): Promise<StoredJob> {
  const stored = await storeJobDocument({ pages });
  jobs.push(stored);
  return stored;
}

const resultOf = (plugin: StartedPlugin, jobId: string) =>
  plugin.nextEvent(FAX_STATUS_EVENT, (p) => (p as FaxStatusUpdate).jobId === jobId) as Promise<FaxStatusUpdate>;

test.before(async () => {
  fake = await AmiFake.start({ username: 'switchboard', secret: PASSWORD });
});

test.after(async () => {
  for (const plugin of started) await plugin.stop();
  for (const stored of jobs) await stored.cleanup();
  await fake.close();
});

test('a fax is rendered to a G4 TIFF, dialled with the exact Originate, and its FaxResult emitted', async () => {
  const { plugin, fax } = await startSip({ callerId: '"ACME" <15550001111>' });
  const { jobId, document } = await job(3);
  const result = await fax.send({ jobId, to: '+15551234567', document, publicBaseUrl: 'http://127.0.0.1:8080' });

  const [originate] = fake.originates.slice(-1);
  assert.ok(originate);
  const actionId = originate.action.get('ActionID')!;
  assert.equal(result, { providerSid: actionId, status: 'in_progress', pages: 3 });
  const faxFile = originate.variables.FAXFILE!;
  assert.is(
    originate.action.raw,
    'Action: Originate\r\n' +
      `ActionID: ${actionId}\r\n` +
      'Channel: Local/+15551234567@faxout\r\n' +
      'Context: faxout\r\n' +
      'Exten: send\r\n' +
      'Priority: 1\r\n' +
      'Timeout: 60000\r\n' +
      'Async: true\r\n' +
      `Variable: JOBID=${jobId},DEST=+15551234567,FAXFILE=${faxFile},FAXHEADER=ACME Clinic\\, Fax \\(main\\),LOCALSTATIONID=+15550001111,T38=yes\r\n` +
      'CallerID: "ACME" <15550001111>\r\n' +
      '\r\n',
  );
  assert.is(originate.variables.FAXHEADER, 'ACME Clinic, Fax (main)', 'Asterisk reads the header back unescaped');

  // The file handed to Asterisk is a real multi-page G4 TIFF with the PDF's pages.
  const meta = await sharp(faxFile).metadata();
  assert.is(meta.pages, 3);
  assert.equal((await readTiffPages(faxFile)).map((p) => p.compression), Array(3).fill(TIFF_COMPRESSION.ccittG4));

  const update = await resultOf(plugin, jobId);
  assert.equal(update, { jobId, providerSid: actionId, status: 'SUCCESS', pages: 3, raw: 'FaxResult SUCCESS' });
  assert.equal(await fax.status({ jobId, to: '+15551234567', providerSid: actionId, sentAt: new Date() }), {
    providerSid: actionId,
    status: 'SUCCESS',
    pages: 3,
    raw: 'FaxResult SUCCESS',
  });
  assert.equal(fake.protocolErrors, []);
});

test('a busy line fails the job with "busy" (OriginateResponse Failure, Reason 5)', async () => {
  const { plugin, fax } = await startSip();
  const { jobId, document } = await job(2);
  fake.script({ kind: 'fail', reason: 5 });
  const result = await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  assert.is(result.status, 'in_progress');
  const update = await resultOf(plugin, jobId);
  assert.is(update.status, 'FAILED');
  assert.is(update.error, 'busy');
  assert.is(update.lineFailure, 'busy', 'a busy line may be redialled');
  assert.is(update.providerSid, result.providerSid);
});

test('no answer fails the job with "no answer" (Reason 3); congestion and others are named too', async () => {
  const { plugin, fax } = await startSip();
  const cases: Array<[number, string, string | undefined]> = [
    [3, 'no answer', 'no_answer'],
    [8, 'congestion', 'line_failure'],
    [1, 'call failed (reason 1)', undefined],
  ];
  for (const [reason, error, lineFailure] of cases) {
    const { jobId, document } = await job(2);
    fake.script({ kind: 'fail', reason });
    await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    const update = await resultOf(plugin, jobId);
    assert.equal([update.status, update.error, update.lineFailure], ['FAILED', error, lineFailure]);
  }
});

test('a fax the far end fails reports the dialplan error and the pages sent', async () => {
  const { plugin, fax } = await startSip();
  const { jobId, document } = await job(2);
  fake.script({ kind: 'fax', status: 'FAILED', error: 'T.30 timeout', pages: 1 });
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  const update = await resultOf(plugin, jobId);
  assert.equal([update.status, update.error, update.pages], ['FAILED', 'T.30 timeout', 1]);
});

test('no result within resultTimeoutMs fails the job', async () => {
  const { plugin, fax } = await startSip({ resultTimeoutMs: 300 });
  const { jobId, document } = await job(2);
  fake.script({ kind: 'silent' });
  const sent = Date.now();
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  const update = await resultOf(plugin, jobId);
  assert.equal([update.status, update.error], ['FAILED', 'timeout waiting for fax result']);
  assert.ok(Date.now() - sent >= 250);
});

test('Asterisk refusing the Originate is a RejectedError, and the job is not tracked', async () => {
  const { fax } = await startSip();
  const { jobId, document } = await job(2);
  fake.script({ kind: 'refuse', message: 'Extension does not exist.' });
  try {
    await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should reject');
  } catch (err) {
    assert.instance(err, RejectedError);
    assert.match((err as Error).message, /Extension does not exist/);
  }
  assert.is(await fax.status({ jobId, to: '5551234567', sentAt: new Date() }), null);
});

test('destinations that are not a phone number are rejected before anything is dialled', async () => {
  const { fax } = await startSip();
  const { jobId, document } = await job(1);
  const before = fake.originates.length;
  for (const to of ['123', '5551234567@evil', '555\r\nAction: Hangup']) {
    try {
      await fax.send({ jobId, to, document, publicBaseUrl: '' });
      assert.unreachable(`dialled ${JSON.stringify(to)}`);
    } catch (err) {
      assert.instance(err, RejectedError);
    }
  }
  assert.is(fake.originates.length, before);
});

test('a trunk setting dials through it: a prefix or a {dest} template', async () => {
  const { plugin, fax } = await startSip({ trunk: 'PJSIP/{dest}@carrier' });
  const { jobId, document } = await job(1);
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  assert.is(fake.originates.at(-1)!.action.get('Channel'), 'PJSIP/5551234567@carrier');
  await resultOf(plugin, jobId);
  const second = await startSip({ trunk: 'SIP/carrier' });
  const other = await job(1);
  await second.fax.send({ jobId: other.jobId, to: '5551234567', document: other.document, publicBaseUrl: '' });
  assert.is(fake.originates.at(-1)!.action.get('Channel'), 'SIP/carrier/5551234567');
});

test('storage without local files is refused: Asterisk needs a path', async () => {
  const { fax } = await startSip();
  const stored = await job(1);
  const { localPath: _omitted, ...remoteLike } = stored.storage;
  const document = createFaxDocument({ jobId: stored.jobId, pdfKey: `jobs/${stored.jobId}/document.pdf`, url: 'http://x', pages: 1, storage: remoteLike, paper: 'letter', gsTimeoutMs: 60_000 });
  try {
    await fax.send({ jobId: stored.jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, RejectedError);
    assert.match((err as Error).message, /local/);
  }
});

test('a TIFF that cannot be rendered is NotAcceptedError, and nothing is dialled', async () => {
  const { fax } = await startSip();
  const stored = await job(1);
  const pdfKey = `jobs/${stored.jobId}/broken.pdf`;
  await stored.storage.put(pdfKey, Buffer.from('%PDF-1.4\nnot a real PDF body\n'));
  const document = createFaxDocument({ jobId: stored.jobId, pdfKey, url: 'http://x', pages: 1, storage: stored.storage, paper: 'letter', gsTimeoutMs: 60_000 });
  const before = fake.originates.length;
  try {
    await fax.send({ jobId: stored.jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should not be accepted');
  } catch (err) {
    assert.instance(err, NotAcceptedError);
    assert.match((err as Error).message, /could not be rendered/);
  }
  assert.is(fake.originates.length, before);
});

test('the AMI password never appears in the logs', () => {
  assert.ok(logLines.length > 0);
  for (const line of logLines) assert.not.ok(line.includes(PASSWORD), line);
  assert.equal(fake.protocolErrors, []);
});

test.run();
