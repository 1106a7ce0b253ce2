import { createServer } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, EgressDeniedError, NotAcceptedError, RejectedError, UncertainOutcomeError, type FaxProvider } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import providerb from '../../../plugins/providerb/index.js';
import { startProviderBFake, type ProviderBFake } from '../../fakes/providerb-fake.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../fakes/fax-document-server.js';
import { closeServer, listen } from '../../fakes/hosted-fax-fake-kit.js';

const PROJECT = 'proj-4411';
const API_KEY = 'pb-key-0c7e5d19';
const API_SECRET = 'pb-secret-93aa61f2';
const PUBLIC = 'https://gateway.example.test';
const TO = '+15551230002';

const logLines: string[] = [];
const errorMessages: string[] = [];
let documents: FaxDocumentServer;

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    errorMessages.push((err as Error).message);
    return err as Error;
  }
  throw new Error('expected a rejection');
}

async function withProviderB(
  settings: Record<string, unknown>,
  body: (ctx: { fake: ProviderBFake; plugin: StartedPlugin; fax: FaxProvider }) => Promise<void>,
  options: { egress?: string[]; defaultPageSize?: number } = {},
): Promise<void> {
  const fake = await startProviderBFake({ projectId: PROJECT, apiKey: API_KEY, apiSecret: API_SECRET, ...(options.defaultPageSize ? { defaultPageSize: options.defaultPageSize } : {}) });
  try {
    const plugin = await startPlugin(providerb, {
      pluginId: 'providerb',
      settings: { baseUrl: fake.baseUrl, projectId: PROJECT, apiKey: API_KEY, apiSecret: API_SECRET, ...settings },
      logLines,
      ...(options.egress ? { egress: options.egress } : {}),
    });
    try {
      await body({ fake, plugin, fax: plugin.instance.providers.fax! });
    } finally {
      await plugin.stop();
    }
  } finally {
    await fake.close();
  }
}

async function sendRequest(jobId: string, pages: number, to = TO) {
  const pdf = await makePdf(pages);
  return { jobId, to, document: documents.document(jobId, pdf, pages), publicBaseUrl: PUBLIC };
}

test.before(async () => {
  documents = await startFaxDocumentServer();
});
test.after(async () => {
  await documents.close();
});

test('send posts JSON {to, contentUrl} with Basic auth; the provider gets a valid PDF', async () => {
  await withProviderB({}, async ({ fake, fax }) => {
    const result = await fax.send(await sendRequest('job-b1', 3));
    assert.is(fake.sends.length, 1);
    const seen = fake.sends[0]!;
    assert.is(seen.authorization, `Basic ${Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64')}`);
    assert.ok(seen.contentType.startsWith('application/json'));
    assert.equal(seen.fields, { to: TO, contentUrl: `${documents.url}/fax/job-b1/pdf?token=tok-job-b1` });
    assert.is(seen.pdfPages, 3);
    const stored = [...fake.faxes.values()][0]!;
    assert.equal(result, { providerSid: stored.id, status: 'queued', pages: 3, raw: 'QUEUED' });
    const status = await fax.status({ jobId: 'job-b1', to: TO, providerSid: stored.id, sentAt: new Date() });
    assert.equal(status, { providerSid: stored.id, status: 'queued', pages: 3, raw: 'QUEUED' });
  });
});

test('status maps every raw status of provider B', async () => {
  const expected: Array<[string, string]> = [
    ['QUEUED', 'queued'],
    ['IN_PROGRESS', 'in_progress'],
    ['COMPLETED', 'SUCCESS'],
    ['SUCCESS', 'SUCCESS'],
    ['FAILURE', 'FAILED'],
    ['FAILED', 'FAILED'],
    ['ERROR', 'FAILED'],
    ['SOMETHING_NEW', 'queued'],
  ];
  await withProviderB({}, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-b2', 2));
    const ref = { jobId: 'job-b2', to: TO, providerSid, sentAt: new Date() };
    for (const [raw, status] of expected) {
      fake.setStatus(providerSid, raw, 2);
      const got = await fax.status(ref);
      assert.is(got?.status, status, raw);
      assert.is(got?.raw, raw);
      assert.is(got?.pages, 2);
      assert.is(got?.error, status === 'FAILED' ? raw : undefined);
    }
    fake.setStatus(providerSid, 'FAILURE', 1, { code: 'BUSY', message: 'The line was busy' });
    assert.is((await fax.status(ref))?.error, 'The line was busy');
    assert.is(await fax.status({ ...ref, providerSid: '01HNOSUCHFAX' }), null);
  });
});

test('a fax whose document is not a PDF fails at the provider', async () => {
  await withProviderB({}, async ({ fake, fax }) => {
    const request = await sendRequest('job-b3', 1);
    documents.document('job-b3', Buffer.from('%PDF-broken'), 1);
    const result = await fax.send(request);
    assert.ok(fake.sends[0]!.pdfError);
    assert.is(result.status, 'FAILED');
    assert.is(result.error, 'The document could not be converted');
  });
});

test('upload mode sends a multipart file and to, which the provider parses', async () => {
  await withProviderB({ sendMode: 'upload' }, async ({ fake, fax }) => {
    const before = documents.requests.length;
    await fax.send(await sendRequest('job-b4', 2));
    const seen = fake.sends[0]!;
    assert.ok(seen.contentType.startsWith('multipart/form-data'));
    assert.equal(seen.fields, { to: TO });
    assert.is(seen.files.length, 1);
    assert.is(seen.files[0]!.field, 'file');
    assert.is(seen.files[0]!.mimeType, 'application/pdf');
    assert.is(seen.pdfPages, 2);
    assert.is(documents.requests.length, before);
  });
});

test('a 5xx or 429 before acceptance throws NotAcceptedError with Retry-After, and nothing is stored', async () => {
  await withProviderB({}, async ({ fake, fax }) => {
    fake.failNext(1, 500, 3);
    const err = await rejectionOf(fax.send(await sendRequest('job-b5', 1)));
    assert.instance(err, NotAcceptedError);
    assert.is((err as NotAcceptedError).retryAfterMs, 3000);
    fake.failNext(1, 429);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-b5', 1))), NotAcceptedError);
    assert.is(fake.sends.length, 2);
    assert.is(fake.faxes.size, 0);
  });
});

test('a refused connection throws NotAcceptedError', async () => {
  const closed = createServer();
  const origin = await listen(closed);
  await closeServer(closed);
  const plugin = await startPlugin(providerb, { settings: { baseUrl: `${origin}/v3`, projectId: PROJECT, apiKey: API_KEY, apiSecret: API_SECRET }, logLines });
  try {
    assert.instance(await rejectionOf(plugin.instance.providers.fax!.send(await sendRequest('job-b6', 1))), NotAcceptedError);
  } finally {
    await plugin.stop();
  }
});

test('a timeout after acceptance is uncertain; a lookup by number and contentUrl, across pages, finds it without resending', async () => {
  await withProviderB(
    { timeoutMs: 300 },
    async ({ fake, fax }) => {
      fake.hangAfterAccept(1);
      const sentAt = new Date();
      assert.instance(await rejectionOf(fax.send(await sendRequest('job-b7', 2))), UncertainOutcomeError);
      const hung = [...fake.faxes.values()][0]!;
      // Newer faxes to the same number push ours to a later page; job-b70 must not match job-b7.
      await fax.send(await sendRequest('job-b70', 1));
      await fax.send(await sendRequest('job-b71', 1));
      const found = await fax.status({ jobId: 'job-b7', to: TO, sentAt });
      assert.equal(found, { providerSid: hung.id, status: 'queued', pages: 2, raw: 'QUEUED' });
      assert.ok(fake.listQueries.some((q) => q.includes('pageToken=')), 'followed nextPageToken');
      assert.is(fake.sends.filter((s) => (s.fields as { contentUrl?: string }).contentUrl?.includes('/fax/job-b7/pdf')).length, 1, 'one send of job-b7');
      assert.is(await fax.status({ jobId: 'job-b9', to: TO, sentAt }), null);
    },
    { defaultPageSize: 1 },
  );
});

test('in upload mode a lookup without the provider id refuses to guess', async () => {
  await withProviderB({ sendMode: 'upload' }, async ({ fax }) => {
    const err = await rejectionOf(fax.status({ jobId: 'job-b8', to: TO, sentAt: new Date() }));
    assert.match(err.message, 'without its id');
  });
});

test('a 2xx answer without a readable body is uncertain', async () => {
  await withProviderB({}, async ({ fake, fax }) => {
    fake.garbleAfterAccept(1);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-b10', 1))), UncertainOutcomeError);
    assert.is(fake.faxes.size, 1);
  });
});

test('a 4xx throws RejectedError with the provider message', async () => {
  await withProviderB({}, async ({ fake, fax }) => {
    const err = await rejectionOf(fax.send(await sendRequest('job-b11', 1, 'nope')));
    assert.instance(err, RejectedError);
    assert.match(err.message, 'to is not a valid phone number');
    assert.is(fake.faxes.size, 0);
  });
});

test('refused credentials throw RejectedError and health says so', async () => {
  await withProviderB({ apiSecret: 'pb-wrong-secret-7788' }, async ({ fake, fax, plugin }) => {
    const err = await rejectionOf(fax.send(await sendRequest('job-b12', 1)));
    assert.instance(err, RejectedError);
    assert.match(err.message, /credentials.*HTTP 401/);
    assert.is(fake.faxes.size, 0);
    assert.is((await plugin.instance.health!()).ok, false);
  });
});

test('health reports a reachable, authenticated provider', async () => {
  await withProviderB({}, async ({ plugin }) => {
    assert.equal(await plugin.instance.health!(), { ok: true, info: { reachable: true } });
  });
});

test('provider B has no cancel and takes no status callbacks (inbound notices only)', async () => {
  await withProviderB({}, async ({ fax }) => {
    assert.is(fax.cancel, undefined);
    assert.is(fax.parseCallback, undefined);
    assert.is(fax.parseWebhook, undefined);
    assert.type(fax.verifyWebhook, 'function');
    assert.type(fax.parseInbound, 'function');
    assert.is(fax.pushesResults, false);
  });
});

test('start without a base URL, project or credentials throws ConfigError naming the field', async () => {
  const full = { baseUrl: 'http://127.0.0.1:9/v3', projectId: PROJECT, apiKey: API_KEY, apiSecret: API_SECRET };
  for (const field of ['baseUrl', 'projectId', 'apiKey', 'apiSecret'] as const) {
    const settings: Record<string, unknown> = { ...full };
    delete settings[field];
    const err = await rejectionOf(startPlugin(providerb, { settings, logLines }));
    assert.instance(err, ConfigError);
    assert.is((err as ConfigError).field, field);
  }
});

test('settings come from the environment, with numbers coerced', async () => {
  const env = {
    PROVIDERB_BASE_URL: 'http://127.0.0.1:9/v3',
    PROVIDERB_PROJECT_ID: PROJECT,
    PROVIDERB_API_KEY: API_KEY,
    PROVIDERB_API_SECRET: API_SECRET,
    PROVIDERB_SEND_MODE: 'upload',
    PROVIDERB_TIMEOUT_MS: '2500',
  };
  const plugin = await startPlugin(providerb, { env, logLines });
  try {
    assert.equal(plugin.ctx.settings, { baseUrl: env.PROVIDERB_BASE_URL, projectId: PROJECT, apiKey: API_KEY, apiSecret: API_SECRET, sendMode: 'upload', timeoutMs: 2500 });
  } finally {
    await plugin.stop();
  }
});

test('a send outside the egress list throws EgressDeniedError', async () => {
  await withProviderB(
    {},
    async ({ fake, fax }) => {
      assert.instance(await rejectionOf(fax.send(await sendRequest('job-b13', 1))), EgressDeniedError);
      assert.is(fake.sends.length, 0);
    },
    { egress: ['example.invalid'] },
  );
});

test('no secret appears in any log line or error message', () => {
  assert.ok(logLines.length > 0, 'the plugin logged');
  const basic = Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64');
  for (const text of [...logLines, ...errorMessages]) {
    for (const secret of [API_KEY, API_SECRET, 'pb-wrong-secret-7788', basic]) assert.not.ok(text.includes(secret), `secret in: ${text}`);
    assert.not.ok(text.includes(TO), `phone number in: ${text}`);
  }
});

test.run();
