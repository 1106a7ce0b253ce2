import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../../../fakes/providera-fake.js';
import { json, postFax, removeDir, tempDir, until } from '../../../../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../../../../support/child-gateway.js';

let fake: ProviderAFake;
let dataDir: string;
let gateway: ChildGateway | undefined;

const env = () => ({
  DATA_DIR: dataDir,
  ENV_FILE: `${dataDir}/none.env`,
  FAX_BACKEND: 'providera',
  PROVIDERA_BASE_URL: fake.baseUrl,
  PROVIDERA_API_KEY: 'k',
  PROVIDERA_API_SECRET: 'crash-secret',
  PROVIDERA_TIMEOUT_MS: '60000',
  FAX_LEASE_MS: '1500',
  FAX_DISPATCH_POLL_MS: '100',
  FAX_UNCERTAIN_RECHECK_MS: '200',
  FAX_STATUS_POLL_MS: '300',
  FAX_RECONCILE_INTERVAL_MS: '100',
});

test.before(async () => {
  fake = await startProviderAFake({ apiKey: 'k', apiSecret: 'crash-secret' });
  dataDir = tempDir();
});
test.after(async () => {
  await gateway?.kill('SIGKILL');
  await fake.close();
  removeDir(dataDir);
});

test('a gateway killed mid-dispatch resumes on restart and the fax is sent exactly once', async () => {
  gateway = await startChildGateway(env());
  // The provider stores the fax and then never answers: the gateway is mid-send when killed.
  fake.hangAfterAccept(1);
  const res = await postFax(gateway.url, '+15550109999', await makePdf(2));
  assert.is(res.status, 202);
  const { id } = await json(res);
  // Wait until the provider has fetched the document, as it would before the send times out.
  await until(() => fake.sends.length === 1 && fake.sends[0]!.pdfPages === 2, 10_000);
  const port = new URL(gateway.url).port;
  await gateway.kill('SIGKILL');

  gateway = await startChildGateway(env(), Number(port));
  const resumed = await until(async () => {
    const j = await json(await fetch(`${gateway!.url}/fax/${id}`));
    return j.provider_sid ? j : undefined;
  }, 15_000, 100);
  assert.is(resumed.status, 'in_progress', JSON.stringify(resumed));
  fake.setStatus(resumed.provider_sid, 'success', 2);
  const done = await until(async () => {
    const j = await json(await fetch(`${gateway!.url}/fax/${id}`));
    return j.status === 'SUCCESS' ? j : undefined;
  }, 10_000, 100);
  assert.is(done.pages, 2);
  assert.is(fake.sends.length, 1, 'the provider saw exactly one send');
});

test.run();
