import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import storageS3 from '../../../plugins/storage-s3/index.js';
import { makePdf } from '../../fakes/fax-document-server.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../support/gateway.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startDroppingProxy, startS3Server, type DroppingProxy, type S3Server } from '../../support/s3-server.js';
import { gatewayDb } from '../../support/database.js';

/**
 * A gateway with STORAGE_BACKEND=storage-s3 against s3rver (through a proxy that can be told to
 * fail uploads), sending with fax-sim; a second plugin instance reads the bucket as another
 * gateway would.
 */
let s3: S3Server;
let proxy: DroppingProxy;
let gw: TestGateway;
let reader: StartedPlugin;
let failing = false;

const bucketKeys = async () => (await reader.instance.providers.storage!.list()).map((e) => e.key);
const jobCount = async () => (await gatewayDb(gw.gateway).selectFrom('fax_jobs').select('id').execute()).length;

test.before(async () => {
  s3 = await startS3Server(['artifacts']);
  proxy = await startDroppingProxy(s3.url, (method) => failing && method === 'PUT');
  const env = { S3_BUCKET: 'artifacts', S3_PREFIX: 'gateway/', S3_ENDPOINT_URL: proxy.url, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY };
  gw = await startGateway({ ...env, STORAGE_BACKEND: 'storage-s3', FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '50', FAX_DISPATCH_POLL_MS: '50' });
  await until(() => gw.gateway.kernel.isActive('storage', 'storage-s3') && gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
  reader = await startPlugin(storageS3, { env: { ...env, S3_ENDPOINT_URL: s3.url } });
});
test.after(async () => {
  await reader?.stop();
  await gw?.close();
  await proxy?.close();
  await s3?.close();
});

test('GET /plugins/storage-s3/config masks both credentials', async () => {
  const res = await fetch(`${gw.url}/plugins/storage-s3/config`);
  assert.is(res.status, 200);
  const text = await res.text();
  assert.not.ok(text.includes(S3_SECRET_ACCESS_KEY), 'the secret key is not shown');
  assert.not.ok(text.includes(S3_ACCESS_KEY_ID), 'the access key id is not shown');
  const cfg = JSON.parse(text);
  assert.equal(cfg.secrets, { accessKeyId: { set: true }, secretAccessKey: { set: true } });
  assert.is(cfg.settings.bucket, 'artifacts');
  assert.is(cfg.sources.secretAccessKey, 'env');
});

test('a fax sent through fax-sim has its document in the bucket and ends SUCCESS', async () => {
  const pdf = await makePdf(2);
  const res = await postFax(gw.url, '+15550000001', pdf);
  assert.is(res.status, 202, await res.clone().text());
  const id = (await json(res)).id as string;
  const job = await until(async () => {
    const j = await json(await fetch(`${gw.url}/fax/${id}`));
    return j.status === 'SUCCESS' || j.status === 'FAILED' ? j : undefined;
  }, 15000, 40);
  assert.is(job.status, 'SUCCESS', JSON.stringify(job));
  const key = (await bucketKeys()).find((k) => k.includes(id) && k.endsWith('document.pdf'));
  assert.ok(key, `the job's PDF is in the bucket: ${(await bucketKeys()).join(', ')}`);
  const stored = await reader.instance.providers.storage!.get(key!);
  assert.is(stored.subarray(0, 5).toString(), '%PDF-');
});

test('an S3 server failing the upload: the submit fails, no object and no job row', async () => {
  const keysBefore = await bucketKeys();
  const rowsBefore = await jobCount();
  failing = true;
  try {
    const res = await postFax(gw.url, '+15550000001', await makePdf(1));
    assert.ok(res.status >= 500, `answered ${res.status}`);
    const body = await json(res);
    assert.type(body.code, 'string');
  } finally {
    failing = false;
  }
  assert.equal(await bucketKeys(), keysBefore);
  assert.is(await jobCount(), rowsBefore);
});

test.run();
