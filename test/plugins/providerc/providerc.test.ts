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
import providerc from '../../../plugins/providerc/index.js';
import { startProviderCFake, type ProviderCFake } from '../../fakes/providerc-fake.js';
import { makePdf, startFaxDocumentServer, type FaxDocumentServer } from '../../fakes/fax-document-server.js';
import { closeServer, listen } from '../../fakes/hosted-fax-fake-kit.js';

const PROJECT = 'b5c1e2f0-0d6a-4e51-9a3f-1c2d3e4f5a6b';
const API_TOKEN = 'PTc0ffee7a1b2c3d4e5f60718293a4b5c6';
const FROM = '+15550009999';
const TO = '+15551230003';
const PUBLIC = 'https://gateway.example.test';

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

async function withProviderC(
  settings: Record<string, unknown>,
  body: (ctx: { fake: ProviderCFake; plugin: StartedPlugin; fax: FaxProvider }) => Promise<void>,
  options: { egress?: string[]; defaultPageSize?: number } = {},
): Promise<void> {
  const fake = await startProviderCFake({ projectId: PROJECT, apiToken: API_TOKEN, ...(options.defaultPageSize ? { defaultPageSize: options.defaultPageSize } : {}) });
  try {
    const plugin = await startPlugin(providerc, {
      pluginId: 'providerc',
      settings: { baseUrl: fake.baseUrl, projectId: PROJECT, apiToken: API_TOKEN, faxFrom: FROM, ...settings },
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
  // The callback URL the host hands this plugin: its manifest's callback alias under PUBLIC_API_URL.
  return { jobId, to, document: documents.document(jobId, pdf, pages), publicBaseUrl: PUBLIC, callbackUrl: `${PUBLIC}/providerc-callback?job_id=${encodeURIComponent(jobId)}` };
}

function webhook(jobId: string, callback: { url: string; body: Buffer; headers: Record<string, string> }): FaxWebhookRequest {
  return { kind: 'callback', url: callback.url, rawBody: callback.body, contentType: callback.headers['content-type'] ?? '', headers: callback.headers, query: { job_id: jobId } };
}

test.before(async () => {
  documents = await startFaxDocumentServer();
});
test.after(async () => {
  await documents.close();
});

test('send posts To, From, MediaUrl and StatusCallback with Basic project:token; the provider gets a valid PDF', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    const result = await fax.send(await sendRequest('job-c1', 3));
    assert.is(fake.sends.length, 1);
    const seen = fake.sends[0]!;
    assert.is(seen.authorization, `Basic ${Buffer.from(`${PROJECT}:${API_TOKEN}`).toString('base64')}`);
    assert.ok(seen.contentType.startsWith('application/x-www-form-urlencoded'));
    assert.equal(seen.fields, {
      To: [TO],
      From: [FROM],
      MediaUrl: [`${documents.url}/fax/job-c1/pdf?token=tok-job-c1`],
      StatusCallback: [`${PUBLIC}/providerc-callback?job_id=job-c1`],
    });
    assert.is(seen.pdfPages, 3);
    const stored = [...fake.faxes.values()][0]!;
    assert.equal(result, { providerSid: stored.sid, status: 'queued', pages: 3, raw: 'queued' });
    const status = await fax.status({ jobId: 'job-c1', to: TO, providerSid: stored.sid, sentAt: new Date() });
    assert.equal(status, { providerSid: stored.sid, status: 'queued', pages: 3, raw: 'queued' });
  });
});

test('send without a callback URL from the host asks the provider for no callback (StatusCallback left out)', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    const { callbackUrl: _omitted, ...request } = await sendRequest('job-nocb', 1);
    await fax.send(request);
    assert.is(fake.sends.length, 1);
    assert.not.ok(Object.hasOwn(fake.sends[0]!.fields, 'StatusCallback'));
  });
});

test('status maps every raw status of provider C', async () => {
  const expected: Array<[string, string]> = [
    ['queued', 'queued'],
    ['processing', 'in_progress'],
    ['sending', 'in_progress'],
    ['delivered', 'SUCCESS'],
    ['receiving', 'in_progress'],
    ['received', 'SUCCESS'],
    ['no-answer', 'FAILED'],
    ['busy', 'FAILED'],
    ['failed', 'FAILED'],
    ['canceled', 'FAILED'],
  ];
  await withProviderC({}, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-c2', 2));
    const ref = { jobId: 'job-c2', to: TO, providerSid, sentAt: new Date() };
    for (const [raw, status] of expected) {
      fake.setStatus(providerSid, raw, 2);
      const got = await fax.status(ref);
      assert.is(got?.status, status, raw);
      assert.is(got?.raw, raw);
      assert.is(got?.pages, 2);
      assert.is(got?.error, status === 'FAILED' ? raw : undefined);
    }
    assert.is(await fax.status({ ...ref, providerSid: 'no-such-sid' }), null);
  });
});

test('a fax whose document is not a PDF fails at the provider', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    const request = await sendRequest('job-c3', 1);
    documents.document('job-c3', Buffer.from('GIF89a not a pdf'), 1);
    const result = await fax.send(request);
    assert.ok(fake.sends[0]!.pdfError);
    assert.is(result.status, 'FAILED');
  });
});

test('a 5xx or 429 before acceptance throws NotAcceptedError with Retry-After, and nothing is stored', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    fake.failNext(1, 502, 11);
    const err = await rejectionOf(fax.send(await sendRequest('job-c5', 1)));
    assert.instance(err, NotAcceptedError);
    assert.is((err as NotAcceptedError).retryAfterMs, 11_000);
    fake.failNext(1, 429);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-c5', 1))), NotAcceptedError);
    assert.is(fake.sends.length, 2);
    assert.is(fake.faxes.size, 0);
  });
});

test('a gateway timeout (504) is uncertain, not "not accepted"', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    fake.failNext(1, 504);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-c6', 1))), UncertainOutcomeError);
  });
});

test('a refused connection throws NotAcceptedError', async () => {
  const closed = createServer();
  const origin = await listen(closed);
  await closeServer(closed);
  const plugin = await startPlugin(providerc, {
    settings: { baseUrl: `${origin}/api/laml/2010-04-01`, projectId: PROJECT, apiToken: API_TOKEN, faxFrom: FROM },
    logLines,
  });
  try {
    assert.instance(await rejectionOf(plugin.instance.providers.fax!.send(await sendRequest('job-c7', 1))), NotAcceptedError);
  } finally {
    await plugin.stop();
  }
});

test('a timeout after acceptance is uncertain; a lookup by To and MediaUrl, across pages, finds it without resending', async () => {
  await withProviderC(
    { timeoutMs: 300 },
    async ({ fake, fax }) => {
      fake.hangAfterAccept(1);
      const sentAt = new Date();
      assert.instance(await rejectionOf(fax.send(await sendRequest('job-c8', 2))), UncertainOutcomeError);
      const hung = [...fake.faxes.values()][0]!;
      await fax.send(await sendRequest('job-c80', 1));
      await fax.send(await sendRequest('job-c81', 1));
      const found = await fax.status({ jobId: 'job-c8', to: TO, sentAt });
      assert.equal(found, { providerSid: hung.sid, status: 'queued', pages: 2, raw: 'queued' });
      assert.ok(fake.listQueries.some((q) => q.includes('Page=2')), 'followed next_page_uri');
      assert.is(fake.sends.filter((s) => s.fields.MediaUrl?.[0]?.includes('/fax/job-c8/pdf')).length, 1, 'one send of job-c8');
      assert.is(await fax.status({ jobId: 'job-c9', to: TO, sentAt }), null);
    },
    { defaultPageSize: 1 },
  );
});

test('a 2xx answer without a readable body is uncertain', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    fake.garbleAfterAccept(1);
    assert.instance(await rejectionOf(fax.send(await sendRequest('job-c10', 1))), UncertainOutcomeError);
    assert.is(fake.faxes.size, 1);
  });
});

test('a 4xx throws RejectedError with the provider message', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    const err = await rejectionOf(fax.send(await sendRequest('job-c11', 1, 'x')));
    assert.instance(err, RejectedError);
    assert.match(err.message, "Invalid 'To' Phone Number (code 21211)");
    assert.is(fake.faxes.size, 0);
  });
});

test('refused credentials throw RejectedError and health says so', async () => {
  await withProviderC({ apiToken: 'PTwrong-token-99aa88bb' }, async ({ fake, fax, plugin }) => {
    const err = await rejectionOf(fax.send(await sendRequest('job-c12', 1)));
    assert.instance(err, RejectedError);
    assert.match(err.message, /credentials.*HTTP 401/);
    assert.is(fake.faxes.size, 0);
    assert.is((await plugin.instance.health!()).ok, false);
  });
});

test('health reports a reachable, authenticated provider', async () => {
  await withProviderC({}, async ({ plugin }) => {
    assert.equal(await plugin.instance.health!(), { ok: true, info: { reachable: true } });
  });
});

test('cancel updates the fax with Status=canceled, by sid or by reference', async () => {
  await withProviderC({}, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-c13', 1));
    await fax.cancel!({ jobId: 'job-c13', to: TO, providerSid, sentAt: new Date() });
    assert.is(fake.faxes.get(providerSid)!.status, 'canceled');
    const second = await fax.send(await sendRequest('job-c14', 1));
    await fax.cancel!({ jobId: 'job-c14', to: TO, sentAt: new Date() });
    assert.is(fake.faxes.get(second.providerSid)!.status, 'canceled');
    assert.instance(await rejectionOf(fax.cancel!({ jobId: 'job-c14', to: TO, providerSid: second.providerSid, sentAt: new Date() })), RejectedError);
  });
});

test('callback signatures: a good one passes (either header), a bad or missing one fails, unchecked when off', async () => {
  await withProviderC({ verifySignature: true }, async ({ fake, fax }) => {
    await fax.send(await sendRequest('job-c15', 2));
    const good = fake.buildCallback('job-c15');
    assert.ok(fax.verifyWebhook!(webhook('job-c15', good)));
    assert.ok(fax.verifyWebhook!(webhook('job-c15', fake.buildCallback('job-c15', { header: 'x-twilio-signature' }))));
    assert.not.ok(fax.verifyWebhook!(webhook('job-c15', fake.buildCallback('job-c15', { signature: null }))));
    assert.not.ok(fax.verifyWebhook!(webhook('job-c15', fake.buildCallback('job-c15', { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }))));
    assert.not.ok(fax.verifyWebhook!(webhook('job-c15', fake.buildCallback('job-c15', { signature: 'short' }))));
    // Signed for another URL (the job id is in it): refused.
    assert.not.ok(fax.verifyWebhook!(webhook('job-c15', fake.buildCallback('job-c15', { url: `${PUBLIC}/providerc-callback?job_id=job-other` }))));
    const tampered = { ...good, body: Buffer.from(good.body.toString().replace('FaxStatus=queued', 'FaxStatus=delivered')) };
    assert.not.ok(fax.verifyWebhook!(webhook('job-c15', tampered)));
  });
  await withProviderC({}, async ({ fake, fax }) => {
    await fax.send(await sendRequest('job-c16', 1));
    assert.ok(fax.verifyWebhook!(webhook('job-c16', fake.buildCallback('job-c16', { signature: null }))));
  });
});

test('parseCallback maps FaxStatus, NumPages and the error for the job in the query', async () => {
  await withProviderC({ verifySignature: true }, async ({ fake, fax }) => {
    const { providerSid } = await fax.send(await sendRequest('job-c17', 4));
    fake.setStatus(providerSid, 'delivered', 4);
    assert.equal(fax.parseCallback!(webhook('job-c17', fake.buildCallback('job-c17'))), {
      jobId: 'job-c17',
      status: 'SUCCESS',
      providerSid,
      pages: 4,
      raw: 'delivered',
    });
    fake.setStatus(providerSid, 'no-answer', 0, { code: '15003', message: 'The remote fax did not answer' });
    assert.equal(fax.parseCallback!(webhook('job-c17', fake.buildCallback('job-c17'))), {
      jobId: 'job-c17',
      status: 'FAILED',
      providerSid,
      pages: 0,
      error: 'The remote fax did not answer (15003)',
      lineFailure: 'no_answer',
      raw: 'no-answer',
    });
    fake.setStatus(providerSid, 'busy', 0);
    assert.is((await fax.parseCallback!(webhook('job-c17', fake.buildCallback('job-c17')))).lineFailure, 'busy');
    assert.is((await fax.status({ jobId: 'job-c17', to: TO, providerSid, sentAt: new Date() }))?.lineFailure, 'busy');
    fake.setStatus(providerSid, 'failed', 0);
    assert.is((await fax.parseCallback!(webhook('job-c17', fake.buildCallback('job-c17')))).lineFailure, undefined, 'a failed fax is not redialled');
  });
});

test('start without a space, project, token or sender throws ConfigError naming the field', async () => {
  const full = { spaceUrl: 'example.signalwire.test', projectId: PROJECT, apiToken: API_TOKEN, faxFrom: FROM };
  for (const field of ['spaceUrl', 'projectId', 'apiToken', 'faxFrom'] as const) {
    const settings: Record<string, unknown> = { ...full };
    delete settings[field];
    const err = await rejectionOf(startPlugin(providerc, { settings, logLines }));
    assert.instance(err, ConfigError);
    assert.is((err as ConfigError).field, field);
  }
});

test('settings come from the environment; the base URL is built from the space', async () => {
  const env = {
    PROVIDERC_SPACE_URL: 'example.signalwire.test',
    PROVIDERC_PROJECT_ID: PROJECT,
    PROVIDERC_API_TOKEN: API_TOKEN,
    PROVIDERC_FAX_FROM: FROM,
    PROVIDERC_VERIFY_SIGNATURE: 'true',
    PROVIDERC_TIMEOUT_MS: '4000',
  };
  const plugin = await startPlugin(providerc, { env, logLines });
  try {
    assert.equal(plugin.ctx.settings, { spaceUrl: 'example.signalwire.test', projectId: PROJECT, apiToken: API_TOKEN, faxFrom: FROM, verifySignature: true, timeoutMs: 4000 });
    // Loopback-only egress refuses the space host, which shows where the send was going.
    const err = await rejectionOf(plugin.instance.providers.fax!.send(await sendRequest('job-c18', 1)));
    assert.instance(err, EgressDeniedError);
    assert.is((err as EgressDeniedError).host, 'example.signalwire.test');
  } finally {
    await plugin.stop();
  }
  const off = await startPlugin(providerc, { env: { ...env, PROVIDERC_VERIFY_SIGNATURE: '0' }, logLines });
  try {
    assert.is(off.ctx.settings.verifySignature, false);
  } finally {
    await off.stop();
  }
});

test('a send outside the egress list throws EgressDeniedError', async () => {
  await withProviderC(
    {},
    async ({ fake, fax }) => {
      assert.instance(await rejectionOf(fax.send(await sendRequest('job-c19', 1))), EgressDeniedError);
      assert.is(fake.sends.length, 0);
    },
    { egress: ['example.invalid'] },
  );
});

test('no secret appears in any log line or error message', () => {
  assert.ok(logLines.length > 0, 'the plugin logged');
  const basic = Buffer.from(`${PROJECT}:${API_TOKEN}`).toString('base64');
  for (const text of [...logLines, ...errorMessages]) {
    for (const secret of [API_TOKEN, 'PTwrong-token-99aa88bb', basic]) assert.not.ok(text.includes(secret), `secret in: ${text}`);
    assert.not.ok(text.includes(TO), `phone number in: ${text}`);
  }
});

test.run();
