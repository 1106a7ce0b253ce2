import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../support/gateway.js';
import { startOutageProxy, type OutageProxy } from '../../../support/outage-proxy.js';
import { freshPostgresDatabase } from '../../../support/pg.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server, type S3Server } from '../../../support/s3-server.js';

// A gateway on PostgreSQL and storage-s3, each behind a proxy the test takes down and brings back.
const NO_SUCH_JOB = '00000000-0000-4000-8000-000000000000';
let pgdb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let s3: S3Server;
let pgProxy: OutageProxy;
let s3Proxy: OutageProxy;
let gw: TestGateway;
const faults: unknown[] = [];
const recordFault = (err: unknown) => faults.push(err);

test.before(async () => {
  process.on('uncaughtException', recordFault);
  process.on('unhandledRejection', recordFault);
  pgdb = await freshPostgresDatabase();
  s3 = await startS3Server(['artifacts']);
  const pgUrl = new URL(pgdb.url);
  pgProxy = await startOutageProxy({ host: pgUrl.hostname, port: Number(pgUrl.port) });
  s3Proxy = await startOutageProxy({ host: '127.0.0.1', port: s3.port });
  pgUrl.host = `127.0.0.1:${pgProxy.port}`;
  gw = await startGateway({
    DATABASE_URL: pgUrl.toString(),
    STORAGE_BACKEND: 'storage-s3',
    S3_BUCKET: 'artifacts',
    S3_ENDPOINT_URL: `http://127.0.0.1:${s3Proxy.port}`,
    S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY,
    FAX_BACKEND: 'fax-sim',
    FAX_SIM_DELAY_MS: '50',
    LOG_LEVEL: 'info',
  });
  await until(() => gw.gateway.kernel.isActive('storage', 'storage-s3') && gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
});
test.after(async () => {
  await gw?.close();
  await pgProxy?.close();
  await s3Proxy?.close();
  await s3?.close();
  await pgdb?.drop();
  process.off('uncaughtException', recordFault);
  process.off('unhandledRejection', recordFault);
});

async function assertUnavailable(res: Response): Promise<void> {
  const body = await res.clone().text();
  assert.is(res.status, 503, body);
  assert.is(JSON.parse(body).code, 'service_unavailable', body);
  assert.ok(Number(res.headers.get('retry-after')) >= 1, `Retry-After: ${res.headers.get('retry-after')}`);
}

function assertNoFault(): void {
  assert.equal(faults.map(String), [], 'no uncaught error or unhandled rejection');
  assert.not.ok(gw.logs.some((l) => l.includes('process fault')), gw.logs.filter((l) => l.includes('process fault')).join('\n'));
}

test('the database goes away: requests answer 503 service_unavailable with Retry-After, and succeed once it is back', async () => {
  assert.is((await fetch(`${gw.url}/fax/${NO_SUCH_JOB}`)).status, 404);
  await pgProxy.down();
  await assertUnavailable(await fetch(`${gw.url}/fax/${NO_SUCH_JOB}`));
  await assertUnavailable(await fetch(`${gw.url}/fax/${NO_SUCH_JOB}`));
  await pgProxy.up();
  await until(async () => (await fetch(`${gw.url}/fax/${NO_SUCH_JOB}`)).status === 404, 15000, 100);
  assertNoFault();
});

test('the object store goes away: a submit answers 503 service_unavailable with Retry-After, and is taken once it is back', async () => {
  const pdf = await makePdf(1);
  await s3Proxy.down();
  await assertUnavailable(await postFax(gw.url, '+15550000001', pdf));
  await s3Proxy.up();
  const res = await until(async () => {
    const r = await postFax(gw.url, '+15550000001', pdf);
    return r.status === 202 ? r : undefined;
  }, 15000, 200);
  const job = await json(res);
  await until(async () => (await json(await fetch(`${gw.url}/fax/${job.id}`))).status === 'SUCCESS', 15000, 50);
  assertNoFault();
});

test.run();
