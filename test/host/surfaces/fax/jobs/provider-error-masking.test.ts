import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startProviderAFake } from '../../../../fakes/providera-fake.js';
import { startProviderBFake } from '../../../../fakes/providerb-fake.js';
import { startProviderCFake } from '../../../../fakes/providerc-fake.js';
import { AmiFake } from '../../../../fakes/ami-fake.js';
import { EslFake } from '../../../../fakes/esl-fake.js';
import { json, ROOT, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { startRecordingProvider } from '../../../../core/declarative/http-fax/recording-provider.js';

// Every provider echoes the destination in its failure text; what the gateway keeps and shows
// of it is *** and the last four digits, like the job's own `to`.
const TO = '+19998887776601';
const PROVIDER_TEXT = `fatal: Line busy at ${TO}`;
const CLEAR = /9998887776601|8887776601/;

interface Started {
  env: Record<string, string>;
  /** Makes the provider report PROVIDER_TEXT for the job (after it was accepted, when needed). */
  fail(job: { id: string; provider_sid?: string }): Promise<void> | void;
  /** True once the job is in the state `fail` needs. */
  ready?(job: { status: string; provider_sid?: string }): boolean;
  close(): Promise<void>;
}

const polling = { FAX_STATUS_POLL_MS: '100', FAX_RECONCILE_INTERVAL_MS: '50' };
const accepted = (job: { provider_sid?: string }) => !!job.provider_sid;

const providers: Record<string, () => Promise<Started>> = {
  async providera() {
    const fake = await startProviderAFake({ apiKey: 'a-key', apiSecret: 'a-secret-value' });
    return {
      env: { FAX_BACKEND: 'providera', PROVIDERA_BASE_URL: fake.baseUrl, PROVIDERA_API_KEY: 'a-key', PROVIDERA_API_SECRET: 'a-secret-value', ...polling },
      ready: accepted,
      fail: (job) => fake.setStatus(job.provider_sid!, 'failure', null, { type: 'lineBusy', message: PROVIDER_TEXT }),
      close: () => fake.close(),
    };
  },
  async providerb() {
    const fake = await startProviderBFake({ projectId: 'proj-1', apiKey: 'b-key', apiSecret: 'b-secret-value' });
    return {
      env: { FAX_BACKEND: 'providerb', PROVIDERB_BASE_URL: fake.baseUrl, PROVIDERB_PROJECT_ID: 'proj-1', PROVIDERB_API_KEY: 'b-key', PROVIDERB_API_SECRET: 'b-secret-value', ...polling },
      ready: accepted,
      fail: (job) => fake.setStatus(job.provider_sid!, 'FAILURE', null, { code: 'LINE_BUSY', message: PROVIDER_TEXT }),
      close: () => fake.close(),
    };
  },
  async providerc() {
    const fake = await startProviderCFake({ projectId: 'proj-c', apiToken: 'c-token-value' });
    return {
      // Provider C's fax resource carries no error text: it comes with the signed status callback.
      env: { FAX_BACKEND: 'providerc', PROVIDERC_BASE_URL: fake.baseUrl, PROVIDERC_PROJECT_ID: 'proj-c', PROVIDERC_API_TOKEN: 'c-token-value', PROVIDERC_FAX_FROM: '+15550001111', PROVIDERC_VERIFY_SIGNATURE: 'true' },
      ready: accepted,
      async fail(job) {
        fake.setStatus(job.provider_sid!, 'failed', null, { code: '15003', message: PROVIDER_TEXT });
        const answer = await fake.postCallback(job.id);
        assert.is(answer.status, 200, await answer.text());
      },
      close: () => fake.close(),
    };
  },
  async sip() {
    const fake = await AmiFake.start({ username: 'switchboard', secret: 'amisecret' });
    fake.script({ kind: 'fax', status: 'FAILED', error: PROVIDER_TEXT });
    return {
      env: { FAX_BACKEND: 'sip', SIP_AMI_HOST: '127.0.0.1', SIP_AMI_PORT: String(fake.port), SIP_AMI_USERNAME: 'switchboard', SIP_AMI_PASSWORD: 'amisecret' },
      fail: () => {},
      close: () => fake.close(),
    };
  },
  async pbxb() {
    const fake = await EslFake.start({ password: 'S3cret-ESL' });
    fake.script({ kind: 'fax', success: false, code: 2, text: PROVIDER_TEXT });
    return {
      env: { FAX_BACKEND: 'pbxb', PBXB_ESL_HOST: '127.0.0.1', PBXB_ESL_PORT: String(fake.port), PBXB_ESL_PASSWORD: 'S3cret-ESL', PBXB_GATEWAY: 'carrier' },
      fail: () => {},
      close: () => fake.close(),
    };
  },
  // The manifest runtime: the registry's faxpipe-json manifest, whose send answer maps `error.message`.
  async 'faxpipe-json'() {
    const provider = await startRecordingProvider();
    provider.answer((req, res) => {
      const body = JSON.stringify(
        req.method === 'POST' ? { data: { id: 'fp-1', status: 'failed' }, error: { message: PROVIDER_TEXT } } : { data: { status: 'failed', failure_reason: PROVIDER_TEXT } },
      );
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end(body);
    });
    return {
      env: { FAX_BACKEND: 'faxpipe-json', PLUGINS_PATH: path.join(ROOT, 'registry/manifests'), FAXPIPE_BASE_URL: `${provider.origin}/v1`, FAXPIPE_API_TOKEN: 'fp-token' },
      fail: () => {},
      close: () => provider.close(),
    };
  },
};

for (const [id, start] of Object.entries(providers)) {
  test(`${id}: a provider's failure text is stored, served, audited and logged with the number masked`, async () => {
    const provider = await start();
    const dataDir = tempDir();
    const auditFile = path.join(dataDir, 'audit.log');
    let gw: TestGateway | undefined;
    try {
      gw = await startGateway({ ...provider.env, AUDIT_LOG_ENABLED: 'true', AUDIT_LOG_FILE: auditFile }, { dataDir, watch: false });
      const g = gw;
      await until(async () => (await json(await fetch(`${g.url}/plugins/${id}`))).state === 'active', 10_000);
      const form = new FormData();
      form.set('to', TO);
      form.set('file', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'letter.pdf');
      const posted = await fetch(`${g.url}/fax`, { method: 'POST', body: form });
      const created = await json(posted);
      assert.is(posted.status, 202, JSON.stringify(created));

      if (provider.ready) {
        const job = await until(async () => {
          const current = await json(await fetch(`${g.url}/fax/${created.id}`));
          return provider.ready!(current) ? current : undefined;
        }, 10_000);
        await provider.fail(job);
      }
      const failed = await until(async () => {
        const current = await json(await fetch(`${g.url}/fax/${created.id}`));
        return current.status === 'FAILED' ? current : undefined;
      }, 15_000);

      // Served: the job view and the admin views.
      assert.type(failed.error, 'string');
      assert.ok(failed.error.includes('Line busy at ***6601'), failed.error);
      assert.not.match(failed.error, CLEAR);
      const listed = (await json(await fetch(`${g.url}/admin/fax-jobs`))).jobs.find((j: { id: string }) => j.id === created.id);
      assert.is(listed.to, '***6601');
      assert.ok(listed.error.includes('***6601'), listed.error);
      assert.not.match(listed.error, CLEAR);
      const detail = await json(await fetch(`${g.url}/admin/fax-jobs/${created.id}`));
      assert.not.match(JSON.stringify(detail), CLEAR);

      // Stored: the row itself holds no number, whoever reads the database.
      const row = await g.gateway.surfaces.fax.store.get(created.id);
      assert.ok(row?.error?.includes('***6601'), row?.error ?? 'no error stored');
      assert.not.match(row!.error!, CLEAR);

      // Audited: the failure record carries the masked text; no record holds the number.
      await g.gateway.audit.flush();
      const records = readFileSync(auditFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const failure = records.find((r) => r.event === 'job_failed' && r.job_id === created.id);
      assert.ok(failure, `no job_failed record: ${JSON.stringify(records.map((r) => r.event))}`);
      assert.ok(String(failure!.error).includes('***6601'), JSON.stringify(failure));
      assert.not.match(JSON.stringify(records), CLEAR);
      const fromDb = await json(await fetch(`${g.url}/admin/logs?event=job_failed`));
      assert.ok(fromDb.records.length >= 1);
      assert.not.match(JSON.stringify(fromDb), CLEAR);

      // Logged: not a line of the gateway's log (host or plugin) holds the number.
      const leaking = g.logs.filter((l) => CLEAR.test(l));
      assert.equal(leaking, [], 'log lines with the number in clear');
    } finally {
      await gw?.close();
      await provider.close();
    }
  });
}

test.run();
