import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';

// GET /admin/fax-activity: the overview chart's data, counted per hour by each job's status now.
let gw: TestGateway;

test.before(async () => {
  gw = await startGateway({ FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '100', FAX_DISPATCH_POLL_MS: '50' });
});
test.after(async () => {
  await gw.close();
});

test('jobs are counted in the current hour as sent, failed or queued', async () => {
  const pdf = await makePdf(1);
  const ids: string[] = [];
  for (const to of ['+15550000001', '+15550000001', '+15550000003']) {
    const res = await postFax(gw.url, to, pdf);
    assert.is(res.status, 202);
    ids.push((await json(res)).id);
  }
  await until(async () => {
    const jobs = await Promise.all(ids.map(async (id) => (await json(await fetch(`${gw.url}/fax/${id}`))).status as string));
    return jobs.every((s) => s === 'SUCCESS' || s === 'FAILED');
  }, 15000, 50);
  // One more, stored in the past: an hour outside the window is not counted.
  await gatewayDb(gw.gateway).updateTable('fax_jobs').set({ created_at: new Date(Date.now() - 30 * 3600_000).toISOString() }).where('id', '=', ids[0]!).execute();

  const body = await json(await fetch(`${gw.url}/admin/fax-activity`));
  assert.is(body.buckets.length, 24);
  assert.is(body.bucket_seconds, 3600);
  assert.is(body.buckets[23].start.slice(0, 13), new Date().toISOString().slice(0, 13));
  // The last two hours: the jobs were made just now (an hour may have turned meanwhile).
  const recent = body.buckets.slice(22).reduce((a: number[], b: { sent: number; failed: number; queued: number }) => [a[0]! + b.sent, a[1]! + b.failed, a[2]! + b.queued], [0, 0, 0]);
  assert.equal(recent, [1, 1, 0]);
  assert.equal(body.totals, { sent: 1, failed: 1, queued: 0, other: 0 });
  assert.ok(body.buckets.slice(0, 22).every((b: { sent: number; failed: number }) => b.sent === 0 && b.failed === 0));

  const week = await json(await fetch(`${gw.url}/admin/fax-activity?hours=48`));
  assert.is(week.buckets.length, 48);
  assert.equal(week.totals, { sent: 2, failed: 1, queued: 0, other: 0 });
});

test('a bad window is a 400 in the API shape', async () => {
  for (const hours of ['0', '-3', 'abc', '1.5', '100000', '9'.repeat(400)]) {
    const res = await fetch(`${gw.url}/admin/fax-activity?hours=${hours}`);
    assert.is(res.status, 400, hours.slice(0, 10));
    const body = await json(res);
    assert.type(body.detail, 'string');
    assert.type(body.code, 'string');
  }
});

test('on PostgreSQL the hours are counted the same way', async () => {
  const db = await freshPostgresDatabase();
  const pgw = await startGateway({ DATABASE_URL: db.url, FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '100', FAX_DISPATCH_POLL_MS: '50' });
  try {
    const res = await postFax(pgw.url, '+15550000003', await makePdf(1));
    const id = (await json(res)).id as string;
    await until(async () => (await json(await fetch(`${pgw.url}/fax/${id}`))).status === 'FAILED', 15000, 50);
    const body = await json(await fetch(`${pgw.url}/admin/fax-activity`));
    assert.equal(body.totals, { sent: 0, failed: 1, queued: 0, other: 0 });
  } finally {
    await pgw.close();
    await db.drop();
  }
});

test.run();
