import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { FAX_STATUS_EVENT, RejectedError, type FaxProvider, type FaxStatusUpdate } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import pbxb from '../../../plugins/pbxb/index.js';
import { EslFake } from '../../fakes/esl-fake.js';
import { storeJobDocument, type StoredJob } from '../../host/surfaces/fax/documents/stored-job.js';
import { readTiffPages, TIFF_COMPRESSION } from '../../host/surfaces/fax/documents/tiff-directory.js';

const PASSWORD = 'S3cret-ESL';
let fake: EslFake;
const started: StartedPlugin[] = [];
const jobs: StoredJob[] = [];
const logLines: string[] = [];

async function startPbxb(settings: Record<string, unknown> = {}): Promise<{ plugin: StartedPlugin; fax: FaxProvider }> {
  const plugin = await startPlugin(pbxb, {
    pluginId: 'pbxb',
    settings: { port: fake.port, callerId: '15550001111', ...settings },
    env: { PBXB_ESL_PASSWORD: PASSWORD, PBXB_GATEWAY: 'carrier', FAX_HEADER: 'ACME Clinic, Fax', FAX_LOCAL_STATION_ID: '+15550001111' },
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
  fake = await EslFake.start({ password: PASSWORD });
});

test.after(async () => {
  for (const plugin of started) await plugin.stop();
  for (const stored of jobs) await stored.cleanup();
  await fake.close();
});

test('authenticates, subscribes to exactly the fax events, and reports health', async () => {
  const { plugin } = await startPbxb();
  const mine = fake.commands.filter((c) => c.connection === fake.connections).map((c) => c.line);
  assert.equal(mine, [`auth ${PASSWORD}`, 'event plain BACKGROUND_JOB CHANNEL_HANGUP_COMPLETE CUSTOM spandsp::txfaxresult']);
  assert.equal(await plugin.instance.health!(), { ok: true, info: { connected: true, authenticated: true } });
});

test('a fax is rendered to a G4 TIFF, originated with txfax, and its txfaxresult emitted', async () => {
  const { plugin, fax } = await startPbxb();
  const { jobId, document } = await job(3);
  const result = await fax.send({ jobId, to: '+15551234567', document, publicBaseUrl: '' });
  const originate = fake.originates.at(-1)!;
  assert.equal(result, { providerSid: originate.jobUuid, status: 'in_progress', pages: 3 });
  assert.is(
    originate.command,
    'bgapi originate {origination_caller_id_number=15550001111,fax_job_id=' +
      jobId +
      ",fax_enable_t38=true,fax_enable_t38_request=true,fax_ident=+15550001111,fax_header='ACME Clinic, Fax',originate_timeout=60}" +
      `sofia/gateway/carrier/+15551234567 &txfax(${originate.tiff})`,
  );
  assert.is(originate.variables.fax_header, 'ACME Clinic, Fax');
  assert.is((await sharp(originate.tiff).metadata()).pages, 3);
  assert.equal((await readTiffPages(originate.tiff)).map((p) => p.compression), Array(3).fill(TIFF_COMPRESSION.ccittG4));

  const update = await resultOf(plugin, jobId);
  assert.equal(update, { jobId, providerSid: originate.jobUuid, status: 'SUCCESS', pages: 3, raw: 'txfaxresult 0' });
  assert.is((await fax.status({ jobId, to: '+15551234567', providerSid: originate.jobUuid, sentAt: new Date() }))?.status, 'SUCCESS');
});

test('fax_success=0 fails the job with the result text and code', async () => {
  const { plugin, fax } = await startPbxb({ t38Enable: false });
  const { jobId, document } = await job(2);
  fake.script({ kind: 'fax', success: false, code: 49, text: 'The call dropped prematurely', pages: 1 });
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  assert.is(fake.originates.at(-1)!.variables.fax_enable_t38, 'false');
  const update = await resultOf(plugin, jobId);
  assert.equal([update.status, update.error, update.pages], ['FAILED', 'The call dropped prematurely (code 49)', 1]);
});

test('a busy destination (BACKGROUND_JOB -ERR USER_BUSY) fails the job with that cause', async () => {
  const { plugin, fax } = await startPbxb();
  const { jobId, document } = await job(2);
  fake.script({ kind: 'fail', cause: 'USER_BUSY' });
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  const update = await resultOf(plugin, jobId);
  assert.equal([update.status, update.error, update.raw, update.lineFailure], ['FAILED', 'busy (USER_BUSY)', 'BACKGROUND_JOB -ERR USER_BUSY', 'busy']);
});

test('no answer fails the job with NO_ANSWER', async () => {
  const { plugin, fax } = await startPbxb();
  const { jobId, document } = await job(2);
  fake.script({ kind: 'fail', cause: 'NO_ANSWER' });
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  const update = await resultOf(plugin, jobId);
  assert.equal([update.error, update.lineFailure], ['no answer (NO_ANSWER)', 'no_answer']);
});

test('a hangup without any txfaxresult fails the job, naming the hangup cause', async () => {
  const { plugin, fax } = await startPbxb();
  const { jobId, document } = await job(2);
  fake.script({ kind: 'hangup', cause: 'NORMAL_CLEARING' });
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  const update = await resultOf(plugin, jobId);
  assert.equal([update.status, update.error], ['FAILED', 'hangup without fax result (NORMAL_CLEARING)']);
});

test('no result within resultTimeoutMs fails the job', async () => {
  const { plugin, fax } = await startPbxb({ resultTimeoutMs: 300 });
  const { jobId, document } = await job(2);
  fake.script({ kind: 'silent' });
  await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
  const update = await resultOf(plugin, jobId);
  assert.equal([update.status, update.error], ['FAILED', 'timeout waiting for fax result']);
});

test('-ERR to the originate is a RejectedError', async () => {
  const { fax } = await startPbxb();
  const { jobId, document } = await job(1);
  fake.script({ kind: 'refuse', replyText: '-ERR no reply' });
  try {
    await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should reject');
  } catch (err) {
    assert.instance(err, RejectedError);
    assert.match((err as Error).message, /-ERR no reply/);
  }
  assert.is(await fax.status({ jobId, to: '5551234567', sentAt: new Date() }), null);
});

test('destinations that are not phone numbers never reach FreeSWITCH', async () => {
  const { fax } = await startPbxb();
  const { jobId, document } = await job(1);
  const before = fake.originates.length;
  for (const to of ['12', '5551234567 &hangup', '555}{x']) {
    try {
      await fax.send({ jobId, to, document, publicBaseUrl: '' });
      assert.unreachable(`dialled ${JSON.stringify(to)}`);
    } catch (err) {
      assert.instance(err, RejectedError);
    }
  }
  assert.is(fake.originates.length, before);
});

test('the ESL password never appears in the logs; every command was well-formed', () => {
  assert.ok(logLines.some((l) => l.includes('ESL authenticated')));
  for (const line of logLines) assert.not.ok(line.includes(PASSWORD), line);
  assert.equal(fake.protocolErrors, []);
});

test.run();
