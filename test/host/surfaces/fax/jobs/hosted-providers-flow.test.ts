import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../../../fakes/providera-fake.js';
import { startProviderBFake, type ProviderBFake } from '../../../../fakes/providerb-fake.js';
import { startProviderCFake, type ProviderCFake } from '../../../../fakes/providerc-fake.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';

/** What differs between the three hosted providers, for one shared flow. */
interface ProviderCase {
  id: 'providera' | 'providerb' | 'providerc';
  start(): Promise<{ fake: ProviderAFake | ProviderBFake | ProviderCFake; env: Record<string, string> }>;
  /** The job id a send carried (tag, contentUrl or MediaUrl). */
  jobOf(send: any): string | undefined;
  /** The raw success status and the raw failure status of the provider. */
  success: string;
  failure: string;
  callbacks: boolean;
  /** The HTTP status the fake answers an accepted send with. */
  accepted: number;
  /** The job's error after polling finds FAILED with FAIL_DETAIL set at the provider. */
  polledError: string;
}

/** The failure the fakes hold for a failed fax (each reads the fields its wire format has). */
const FAIL_DETAIL = { type: 'line_busy', code: '1001', message: 'Line busy at the far end' };

const jobInUrl = (url: unknown) => (typeof url === 'string' ? /\/fax\/([^/]+)\/pdf/.exec(url)?.[1] : undefined);
const first = (v: unknown) => (Array.isArray(v) ? v[0] : v);

const cases: ProviderCase[] = [
  {
    id: 'providera',
    async start() {
      const fake = await startProviderAFake({ apiKey: 'a-key', apiSecret: 'a-secret-value' });
      return {
        fake,
        env: {
          PROVIDERA_BASE_URL: fake.baseUrl,
          PROVIDERA_API_KEY: 'a-key',
          PROVIDERA_API_SECRET: 'a-secret-value',
          PROVIDERA_VERIFY_SIGNATURE: 'true',
          PROVIDERA_TIMEOUT_MS: '700',
        },
      };
    },
    jobOf: (send) => first(send.fields['tag[job_id]']),
    success: 'success',
    failure: 'failure',
    callbacks: true,
    accepted: 200,
    polledError: 'line_busy: Line busy at the far end',
  },
  {
    id: 'providerb',
    async start() {
      const fake = await startProviderBFake({ projectId: 'proj-1', apiKey: 'b-key', apiSecret: 'b-secret-value' });
      return {
        fake,
        env: { PROVIDERB_BASE_URL: fake.baseUrl, PROVIDERB_PROJECT_ID: 'proj-1', PROVIDERB_API_KEY: 'b-key', PROVIDERB_API_SECRET: 'b-secret-value', PROVIDERB_TIMEOUT_MS: '700' },
      };
    },
    jobOf: (send) => jobInUrl(send.fields.contentUrl),
    success: 'COMPLETED',
    failure: 'FAILURE',
    callbacks: false,
    accepted: 200,
    polledError: 'Line busy at the far end',
  },
  {
    id: 'providerc',
    async start() {
      const fake = await startProviderCFake({ projectId: 'proj-c', apiToken: 'c-token-value' });
      return {
        fake,
        env: {
          PROVIDERC_BASE_URL: fake.baseUrl,
          PROVIDERC_PROJECT_ID: 'proj-c',
          PROVIDERC_API_TOKEN: 'c-token-value',
          PROVIDERC_FAX_FROM: '+15550001111',
          PROVIDERC_VERIFY_SIGNATURE: 'true',
          PROVIDERC_TIMEOUT_MS: '700',
        },
      };
    },
    jobOf: (send) => jobInUrl(first(send.fields.MediaUrl)),
    success: 'delivered',
    failure: 'failed',
    callbacks: true,
    accepted: 201,
    // The LaML Fax resource carries no error fields (only the status callback does): the status word.
    polledError: 'failed',
  },
];

const FAST = {
  FAX_RETRY_BASE_MS: '50',
  FAX_DISPATCH_POLL_MS: '50',
  FAX_UNCERTAIN_RECHECK_MS: '150',
  FAX_STATUS_POLL_MS: '300',
  FAX_RECONCILE_INTERVAL_MS: '100',
};

for (const c of cases) {
  const test = suite(`${c.id} through the gateway`);
  let gw: TestGateway;
  let fake: any;

  const job = async (id: string) => json(await fetch(`${gw.url}/fax/${id}`));
  const sendsOf = (jobId: string) => fake.sends.filter((s: any) => c.jobOf(s) === jobId);
  const submit = async (file: Buffer | string, filename = 'doc') => {
    const res = await postFax(gw.url, '+1 (555) 010-2030', file, {}, filename);
    assert.is(res.status, 202, await res.clone().text());
    return json(res);
  };
  const waitFor = (id: string, pred: (j: any) => boolean, ms = 8000) =>
    until(async () => {
      const j = await job(id);
      return pred(j) ? j : undefined;
    }, ms, 40);

  test.before(async () => {
    const started = await c.start();
    fake = started.fake;
    gw = await startGateway({ FAX_BACKEND: c.id, ...FAST, ...started.env });
  });
  test.after(async () => {
    await gw.close();
    await fake.close();
  });

  test('a text, a PDF and an image upload reach the provider as valid PDFs', async () => {
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#fff' } }).png().toBuffer();
    const uploads = [await submit('Dear reader,\nthis is a text fax.\n', 'note.txt'), await submit(await makePdf(3), 'x.pdf'), await submit(png, 'scan.png')];
    for (const u of uploads) {
      assert.is(u.status, 'queued');
      assert.is(u.backend, c.id);
      assert.is(u.to, '+15550102030');
    }
    for (const [i, u] of uploads.entries()) {
      const done = await waitFor(u.id, (j) => j.status === 'in_progress' && !!j.provider_sid);
      assert.ok(done.provider_sid);
      const seen = sendsOf(u.id);
      assert.is(seen.length, 1, `exactly one send for upload ${i}`);
      assert.is(seen[0].pdfError, undefined);
      assert.is(seen[0].pdfPages, i === 1 ? 3 : 1, 'the provider parsed the PDF it fetched');
    }
  });

  test('provider statuses map to job statuses through polling', async () => {
    const ok = await submit(await makePdf(2));
    const bad = await submit(await makePdf(1));
    const a = await waitFor(ok.id, (j) => !!j.provider_sid);
    const b = await waitFor(bad.id, (j) => !!j.provider_sid);
    fake.setStatus(a.provider_sid, c.success, 2);
    fake.setStatus(b.provider_sid, c.failure, 1, FAIL_DETAIL);
    const success = await waitFor(ok.id, (j) => j.status === 'SUCCESS');
    assert.is(success.pages, 2);
    const failed = await waitFor(bad.id, (j) => j.status === 'FAILED');
    assert.is(failed.error, c.polledError, 'the provider\'s failure reaches the job');
    // A final job never moves backwards, whatever the provider says later.
    fake.setStatus(a.provider_sid, c.failure, 2);
    const refreshed = await json(await fetch(`${gw.url}/admin/fax-jobs/${ok.id}/refresh`, { method: 'POST' }));
    assert.is(refreshed.status, 'SUCCESS');
  });

  if (c.callbacks) {
    test('a signed status callback finalizes status and pages; a bad signature is refused', async () => {
      const u = await submit(await makePdf(4));
      const j = await waitFor(u.id, (x) => !!x.provider_sid);
      fake.setStatus(j.provider_sid, c.success, 4);
      const forged = fake.buildCallback(u.id, { signature: 'deadbeef' });
      const refused = await fetch(forged.url, { method: 'POST', body: forged.body, headers: forged.headers });
      assert.is(refused.status, 401);
      assert.is((await job(u.id)).status, 'in_progress');
      const unsigned = fake.buildCallback(u.id, { signature: null });
      assert.is((await fetch(unsigned.url, { method: 'POST', body: unsigned.body, headers: unsigned.headers })).status, 401);
      const res = await fake.postCallback(u.id);
      assert.is(res.status, 200, await res.clone().text());
      const after = await job(u.id);
      assert.is(after.status, 'SUCCESS');
      assert.is(after.pages, 4);
      const again = await fake.postCallback(u.id);
      assert.is(again.status, 200, 'a duplicate callback is accepted and changes nothing');
      assert.is((await job(u.id)).status, 'SUCCESS');
    });
  }

  if (c.id === 'providerc') {
    test('provider C on the generic route: signed for /webhooks/providerc/callback it applies; that signature is refused on the spec path', async () => {
      const u = await submit(await makePdf(3));
      const j = await waitFor(u.id, (x) => !!x.provider_sid);
      fake.setStatus(j.provider_sid, c.success, 3);
      const generic = `${gw.url}/webhooks/providerc/callback?job_id=${encodeURIComponent(u.id)}`;
      const signed = fake.buildCallback(u.id, { url: generic });
      // The signature covers the URL: the same request on the alias is another URL.
      const moved = await fetch(`${gw.url}/providerc-callback?job_id=${encodeURIComponent(u.id)}`, { method: 'POST', body: signed.body, headers: signed.headers });
      assert.is(moved.status, 401);
      const res = await fetch(generic, { method: 'POST', body: signed.body, headers: signed.headers });
      assert.is(res.status, 200, await res.clone().text());
      const after = await job(u.id);
      assert.equal([after.status, after.pages], ['SUCCESS', 3]);
    });
  }

  test('a 5xx before acceptance is retried until the provider accepts', async () => {
    fake.failNext(2, 503);
    const u = await submit(await makePdf(1));
    await waitFor(u.id, (j) => !!j.provider_sid);
    const seen = sendsOf(u.id);
    assert.equal(
      seen.map((s: any) => s.answer),
      [503, 503, c.accepted],
      'two refusals, then one accepted send',
    );
  });

  test('a timeout after acceptance is resolved by looking the fax up, never by sending again', async () => {
    fake.hangAfterAccept(1);
    const u = await submit(await makePdf(2));
    const found = await waitFor(u.id, (j) => j.status === 'in_progress' && !!j.provider_sid, 10_000);
    assert.is(sendsOf(u.id).length, 1);
    fake.setStatus(found.provider_sid, c.success, 2);
    await waitFor(u.id, (j) => j.status === 'SUCCESS');
    assert.is(sendsOf(u.id).length, 1, 'the provider saw exactly one send');
  });

  test.run();
}
