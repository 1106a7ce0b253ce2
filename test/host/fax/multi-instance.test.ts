import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../fakes/providera-fake.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../support/gateway.js';
import { freshPostgresDatabase } from '../../support/pg.js';

let fake: ProviderAFake;
let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
const gateways: TestGateway[] = [];

test.before(async () => {
  fake = await startProviderAFake({ apiKey: 'k', apiSecret: 'multi-secret' });
  db = await freshPostgresDatabase();
  for (let i = 0; i < 2; i++) {
    gateways.push(
      await startGateway({
        DATABASE_URL: db.url,
        FAX_BACKEND: 'providera',
        PROVIDERA_BASE_URL: fake.baseUrl,
        PROVIDERA_API_KEY: 'k',
        PROVIDERA_API_SECRET: 'multi-secret',
        FAX_DISPATCH_CONCURRENCY: '6',
        FAX_DISPATCH_POLL_MS: '20',
        LOG_LEVEL: 'warn',
      }),
    );
  }
});
test.after(async () => {
  for (const g of gateways) await g.close();
  await fake.close();
  await db.drop();
});

test('two gateway instances on one PostgreSQL send 100 jobs, each exactly once', async () => {
  const pdf = await makePdf(1);
  const ids: string[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await postFax(gateways[i % 2]!.url, `+1555020${String(i).padStart(4, '0')}`, pdf);
    assert.is(res.status, 202);
    ids.push((await json(res)).id);
  }
  await until(() => fake.sends.length >= 100, 60_000, 50);
  // Let any duplicate that would come arrive before counting.
  await new Promise((r) => setTimeout(r, 500));
  const perJob = new Map<string, number>();
  for (const s of fake.sends) {
    const job = s.fields['tag[job_id]']?.[0];
    perJob.set(job!, (perJob.get(job!) ?? 0) + 1);
  }
  assert.is(fake.sends.length, 100);
  for (const id of ids) assert.is(perJob.get(id), 1, `job ${id} sent once`);
  // Both instances did part of the work.
  const statuses = await Promise.all(ids.map(async (id) => (await json(await fetch(`${gateways[0]!.url}/fax/${id}`))).status));
  assert.ok(statuses.every((s) => s === 'in_progress'), statuses.join(','));
});

test.run();
