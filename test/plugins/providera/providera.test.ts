import { createServer } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ConfigError,
  EgressDeniedError,
  NotAcceptedError,
  RejectedError,
  UncertainOutcomeError,
  type FaxProvider,
  type FaxWebhookRequest,
} from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import providera from '../../../plugins/providera/index.js';
import { startProviderAFake, type ProviderAFake } from '../../fakes/providera-fake.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../fakes/fax-document-server.js';
import { closeServer, listen } from '../../fakes/hosted-fax-fake-kit.js';

const API_KEY = 'pa-key-7f3c9e21';
const API_SECRET = 'pa-secret-b81d44a0';
const PUBLIC = 'https://gateway.example.test';

// Every log line and error message of the suite, checked for secrets at the end.
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

async function withProviderA(
  settings: Record<string, unknown>,
  body: (ctx: { fake: ProviderAFake; plugin: StartedPlugin; fax: FaxProvider }) => Promise<void>,
  egress?: string[],
): Promise<void> {
  const fake = await startProviderAFake({ apiKey: API_KEY, apiSecret: API_SECRET });
  try {
    const plugin = await startPlugin(providera, {
      pluginId: 'providera',
      settings: { baseUrl: fake.baseUrl, apiKey: API_KEY, apiSecret: API_SECRET, ...settings },
      logLines,
      ...(egress ? { egress } : {}),
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

async function sendRequest(jobId: string, pages: number, to = '+15551230001') {
  const pdf = await makePdf(pages);
  // The callback URL the host hands this plugin: its manifest's callback alias under PUBLIC_API_URL.
  return { jobId, to, document: documents.document(jobId, pdf, pages), publicBaseUrl: PUBLIC, callbackUrl: `${PUBLIC}/providera-callback?job_id=${encodeURIComponent(jobId)}` };
}

function webhook(jobId: string, callback: { url: string; body: Buffer; headers: Record<string, string> }): FaxWebhookRequest {
  return {
    kind: 'callback',
    url: callback.url,
    rawBody: callback.body,
    contentType: callback.headers['content-type'] ?? '',
    headers: callback.headers,
    query: { job_id: jobId },
  };
}

test.before(async () => {
  documents = await startFaxDocumentServer();
});
test.after(async () => {
  await documents.close();
});

test('send posts to, content_url[], callback_url and tag[job_id] with Basic auth; the provider gets a valid PDF', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    const result = await fax.send(await sendRequest('job-a1', 3));
    assert.is(fake.sends.length, 1);
    const seen = fake.sends[0]!;
    assert.is(seen.authorization, `Basic ${Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64')}`);
    assert.ok(seen.contentType.startsWith('application/x-www-form-urlencoded'));
    assert.equal(Object.keys(seen.fields).sort(), ['callback_url', 'content_url[]', 'tag[job_id]', 'to']);
    assert.equal(seen.fields.to, ['+15551230001']);
    assert.equal(seen.fields['content_url[]'], [`${documents.url}/fax/job-a1/pdf?token=tok-job-a1`]);
    assert.equal(seen.fields.callback_url, [`${PUBLIC}/providera-callback?job_id=job-a1`]);
    assert.equal(seen.fields['tag[job_id]'], ['job-a1']);
    assert.is(seen.files.length, 0);
    assert.is(seen.pdfPages, 3);
    const stored = [...fake.faxes.values()][0]!;
    assert.equal(result, { providerSid: String(stored.id), status: 'queued' });
    const status = await fax.status({ jobId: 'job-a1', to: '+15551230001', providerSid: result.providerSid, sentAt: new Date() });
    assert.equal(status, { providerSid: result.providerSid, status: 'queued', pages: 3, raw: 'queued' });
  });
});

test('send without a callback URL from the host asks the provider for no callback (callback_url left out)', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    const { callbackUrl: _omitted, ...request } = await sendRequest('job-nocb', 1);
    await fax.send(request);
    assert.is(fake.sends.length, 1);
    assert.not.ok(Object.hasOwn(fake.sends[0]!.fields, 'callback_url'));
  });
});

test('status maps every raw status of provider A', async () => {
  const expected: Array<[string, string, string | undefined]> = [
    ['queued', 'queued', undefined],
    ['pendingbatch', 'queued', undefined],
    ['inprogress', 'in_progress', undefined],
    ['sending', 'in_progress', undefined],
    ['success', 'SUCCESS', undefined],
    ['failure', 'FAILED', 'failure'],
    ['cancelled', 'FAILED', 'cancelled'],
    ['error', 'FAILED', 'error'],
    ['partialsuccess', 'FAILED', 'partial success'],
  ];
  await withProviderA({}, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-a2', 2));
    const ref = { jobId: 'job-a2', to: '+15551230001', providerSid, sentAt: new Date() };
    for (const [raw, status, error] of expected) {
      fake.setStatus(providerSid, raw, 2);
      const got = await fax.status(ref);
      assert.is(got?.status, status, raw);
      assert.is(got?.raw, raw);
      assert.is(got?.error, error, raw);
      assert.is(got?.pages, 2);
    }
    fake.setStatus(providerSid, 'failure', 1, { type: 'lineError', message: 'Busy signal' });
    assert.is((await fax.status(ref))?.error, 'lineError: Busy signal');
    assert.is((await fax.status(ref))?.lineFailure, 'line_failure', 'a line error may clear on a redial');
    fake.setStatus(providerSid, 'failure', 1, { type: 'faxError', message: 'Bad document' });
    assert.is((await fax.status(ref))?.lineFailure, undefined, 'a fax error is final');
  });
});

test('a fax whose document is not a PDF fails at the provider', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    const request = await sendRequest('job-a3', 1);
    documents.document('job-a3', Buffer.from('not a pdf at all'), 1);
    const { providerSid } = await fax.send(request);
    assert.ok(fake.sends[0]!.pdfError);
    const status = await fax.status({ jobId: 'job-a3', to: request.to, providerSid, sentAt: new Date() });
    assert.is(status?.status, 'FAILED');
    assert.is(status?.error, 'documentConversionError: The document could not be converted');
  });
});

test('upload mode sends the PDF as a multipart file the provider parses', async () => {
  await withProviderA({ sendMode: 'upload' }, async ({ fake, fax }) => {
    const before = documents.requests.length;
    await fax.send(await sendRequest('job-a4', 2));
    const seen = fake.sends[0]!;
    assert.ok(seen.contentType.startsWith('multipart/form-data'));
    assert.equal(Object.keys(seen.fields).sort(), ['callback_url', 'tag[job_id]', 'to']);
    assert.is(seen.files.length, 1);
    assert.is(seen.files[0]!.field, 'file');
    assert.is(seen.files[0]!.mimeType, 'application/pdf');
    assert.is(seen.pdfPages, 2);
    assert.is(documents.requests.length, before, 'the provider downloaded nothing');
  });
});

test('a 5xx or 429 before acceptance throws NotAcceptedError with Retry-After, and nothing is stored', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    fake.failNext(1, 503, 7);
    const err = await rejectionOf(fax.send(await sendRequest('job-a5', 1)));
    assert.instance(err, NotAcceptedError);
    assert.is((err as NotAcceptedError).retryAfterMs, 7000);
    fake.failNext(1, 429);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-a5', 1))), NotAcceptedError);
    assert.is(fake.sends.length, 2);
    assert.is(fake.faxes.size, 0);
  });
});

test('a refused connection throws NotAcceptedError', async () => {
  const closed = createServer();
  const origin = await listen(closed);
  await closeServer(closed);
  const plugin = await startPlugin(providera, { settings: { baseUrl: `${origin}/v2`, apiKey: API_KEY, apiSecret: API_SECRET }, logLines });
  try {
    const err = await rejectionOf(plugin.instance.providers.fax!.send(await sendRequest('job-a6', 1)));
    assert.instance(err, NotAcceptedError);
  } finally {
    await plugin.stop();
  }
});

test('a timeout after acceptance is uncertain, and a lookup by reference finds the fax without resending', async () => {
  await withProviderA({ timeoutMs: 300 }, async ({ fake, fax }) => {
    fake.hangAfterAccept(1);
    const sentAt = new Date();
    const err = await rejectionOf(fax.send(await sendRequest('job-a7', 2)));
    assert.instance(err, UncertainOutcomeError);
    const found = await fax.status({ jobId: 'job-a7', to: '+15551230001', sentAt });
    const stored = [...fake.faxes.values()][0]!;
    assert.equal(found, { providerSid: String(stored.id), status: 'queued', pages: 2, raw: 'queued' });
    assert.is(fake.sends.length, 1, 'exactly one send reached the provider');
    assert.is(await fax.status({ jobId: 'job-unknown', to: '+15551230001', sentAt }), null);
  });
});

test('a 2xx answer without a readable body is uncertain', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    fake.garbleAfterAccept(1);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-a8', 1))), UncertainOutcomeError);
    assert.is(fake.faxes.size, 1);
  });
});

test('a 4xx throws RejectedError with the provider message', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    const err = await rejectionOf(fax.send(await sendRequest('job-a9', 1, 'not-a-number')));
    assert.instance(err, RejectedError);
    assert.match(err.message, 'Invalid phone number');
    assert.is(fake.faxes.size, 0);
  });
});

test('refused credentials throw RejectedError and the plugin keeps serving', async () => {
  await withProviderA({ apiSecret: 'pa-wrong-secret-5566' }, async ({ fake, fax, plugin }) => {
    const err = await rejectionOf(fax.send(await sendRequest('job-a10', 1)));
    assert.instance(err, RejectedError);
    assert.match(err.message, /credentials.*HTTP 401/);
    assert.is(fake.faxes.size, 0);
    const health = await plugin.instance.health!();
    assert.is(health.ok, false);
    assert.match(health.detail ?? '', '401');
  });
});

test('health reports a reachable, authenticated provider', async () => {
  await withProviderA({}, async ({ plugin }) => {
    assert.equal(await plugin.instance.health!(), { ok: true, info: { reachable: true } });
  });
});

test('start without a base URL or credentials throws ConfigError naming the field (without the API key alone it serves inbound only)', async () => {
  const full = { baseUrl: 'http://127.0.0.1:9/v2', apiKey: API_KEY, apiSecret: API_SECRET };
  for (const field of ['baseUrl', 'apiSecret'] as const) {
    const settings: Record<string, unknown> = { ...full };
    delete settings[field];
    const err = await rejectionOf(startPlugin(providera, { settings, logLines }));
    assert.instance(err, ConfigError);
    assert.is((err as ConfigError).field, field);
  }
  const inboundOnly = await startPlugin(providera, { settings: { baseUrl: full.baseUrl, apiSecret: API_SECRET }, logLines });
  assert.equal(inboundOnly.instance.providers.fax!.directions, ['inbound']);
  await inboundOnly.stop();
});

test('settings come from the environment, with booleans and numbers coerced', async () => {
  const env = {
    PROVIDERA_BASE_URL: 'http://127.0.0.1:9/v2',
    PROVIDERA_API_KEY: API_KEY,
    PROVIDERA_API_SECRET: API_SECRET,
    PROVIDERA_VERIFY_SIGNATURE: '1',
    PROVIDERA_SEND_MODE: 'upload',
    PROVIDERA_TIMEOUT_MS: '1500',
  };
  const plugin = await startPlugin(providera, { env, logLines });
  try {
    assert.equal(plugin.ctx.settings, { ...{ baseUrl: env.PROVIDERA_BASE_URL, apiKey: API_KEY, apiSecret: API_SECRET }, verifySignature: true, sendMode: 'upload', timeoutMs: 1500, inboundVerifySignature: true });
  } finally {
    await plugin.stop();
  }
  const off = await startPlugin(providera, { env: { ...env, PROVIDERA_VERIFY_SIGNATURE: 'false' }, logLines });
  try {
    assert.is(off.ctx.settings.verifySignature, false);
  } finally {
    await off.stop();
  }
});

test('callback signatures: a good one passes, a bad or missing one fails, unchecked when verification is off', async () => {
  await withProviderA({ verifySignature: true }, async ({ fake, fax }) => {
    await fax.send(await sendRequest('job-a11', 2));
    const good = fake.buildCallback('job-a11');
    assert.ok(fax.verifyWebhook!(webhook('job-a11', good)));
    assert.ok(fax.verifyWebhook!(webhook('job-a11', fake.buildCallback('job-a11', { encoding: 'multipart' }))));
    const loose = { ...good, headers: { ...good.headers, 'x-providera-signature': `  ${good.headers['x-providera-signature']!.toUpperCase()} ` } };
    assert.ok(fax.verifyWebhook!(webhook('job-a11', loose)), 'trimmed and lowercased before comparing');
    assert.not.ok(fax.verifyWebhook!(webhook('job-a11', fake.buildCallback('job-a11', { signature: 'ab'.repeat(32) }))));
    assert.not.ok(fax.verifyWebhook!(webhook('job-a11', fake.buildCallback('job-a11', { signature: 'short' }))));
    assert.not.ok(fax.verifyWebhook!(webhook('job-a11', fake.buildCallback('job-a11', { signature: null }))));
    const tampered = { ...good, body: Buffer.from(good.body.toString().replace('queued', 'success')) };
    assert.not.ok(fax.verifyWebhook!(webhook('job-a11', tampered)));
  });
  await withProviderA({}, async ({ fake, fax }) => {
    await fax.send(await sendRequest('job-a12', 1));
    assert.ok(fax.verifyWebhook!(webhook('job-a12', fake.buildCallback('job-a12', { signature: null }))));
  });
});

test('parseCallback maps the callback status, pages and error for the job in the query', async () => {
  await withProviderA({ verifySignature: true }, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-a13', 4));
    fake.setStatus(providerSid, 'success', 4);
    assert.equal(fax.parseCallback!(webhook('job-a13', fake.buildCallback('job-a13'))), {
      jobId: 'job-a13',
      status: 'SUCCESS',
      providerSid,
      pages: 4,
      raw: 'success',
    });
    fake.setStatus(providerSid, 'failure', 1, { type: 'faxError', message: 'No answer' });
    assert.equal(fax.parseCallback!(webhook('job-a13', fake.buildCallback('job-a13', { encoding: 'multipart' }))), {
      jobId: 'job-a13',
      status: 'FAILED',
      providerSid,
      pages: 1,
      error: 'faxError: No answer',
      raw: 'failure',
    });
  });
});

test('cancel posts to /faxes/{id}/cancel, by id or by reference', async () => {
  await withProviderA({}, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-a14', 1));
    await fax.cancel!({ jobId: 'job-a14', to: '+15551230001', providerSid, sentAt: new Date() });
    assert.is(fake.faxes.get(Number(providerSid))!.status, 'cancelled');
    const second = await fax.send(await sendRequest('job-a15', 1));
    await fax.cancel!({ jobId: 'job-a15', to: '+15551230001', sentAt: new Date() });
    assert.is(fake.faxes.get(Number(second.providerSid))!.status, 'cancelled');
    assert.instance(await rejectionOf(fax.cancel!({ jobId: 'job-a15', to: '+1', providerSid: second.providerSid, sentAt: new Date() })), RejectedError);
  });
});

test('a send outside the egress list throws EgressDeniedError', async () => {
  await withProviderA(
    {},
    async ({ fake, fax }) => {
      assert.instance(await rejectionOf(fax.send(await sendRequest('job-a16', 1))), EgressDeniedError);
      assert.is(fake.sends.length, 0);
    },
    ['example.invalid'],
  );
});

test('no secret appears in any log line or error message', () => {
  assert.ok(logLines.length > 0, 'the plugin logged');
  const basic = Buffer.from(`${API_KEY}:${API_SECRET}`).toString('base64');
  for (const text of [...logLines, ...errorMessages]) {
    for (const secret of [API_KEY, API_SECRET, 'pa-wrong-secret-5566', basic]) assert.not.ok(text.includes(secret), `secret in: ${text}`);
    assert.not.ok(text.includes('+15551230001'), `phone number in: ${text}`);
  }
});

test.run();
