import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../../../fakes/providera-fake.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { dispatchSettled } from '../../../../support/fax-dispatch.js';

const TOTAL = 100;
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
  // Every claimed row's update sleeps a little, so the two instances' claims overlap in time.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`CREATE FUNCTION test_claim_pause() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.003); RETURN NEW; END $$ LANGUAGE plpgsql`);
  await c.query(`CREATE TRIGGER test_claim_pause BEFORE UPDATE ON fax_jobs FOR EACH ROW EXECUTE FUNCTION test_claim_pause()`);
  await c.end();
});
test.after(async () => {
  for (const g of gateways) await g.close();
  await fake.close();
  await db.drop();
});

test('two gateway instances on one PostgreSQL share 100 jobs submitted to one of them, each sent exactly once', async () => {
  const pdf = await makePdf(1);
  // All jobs go to instance 0, at once: instance 1 learns of them only by claiming from the table,
  // so its dispatcher contends with instance 0's for the same rows.
  const responses = await Promise.all(Array.from({ length: TOTAL }, (_, i) => postFax(gateways[0]!.url, `+1555020${String(i).padStart(4, '0')}`, pdf)));
  const ids: string[] = [];
  for (const res of responses) {
    assert.is(res.status, 202);
    ids.push((await json(res)).id);
  }
  await until(() => fake.sends.length >= TOTAL, 60_000, 50);
  // Counted once no job can be sent again (each accepted or final, no lease held), not after a pause.
  await dispatchSettled(gateways[0]!.gateway.surfaces.fax.store.db, ids);
  assert.is(fake.sends.length, TOTAL, 'no job sent twice');

  // Which instance sent each job: its callback URL carries that instance's PUBLIC_API_URL.
  const senderOf = new Map<string, number>();
  for (const s of fake.sends) {
    const job = s.fields['tag[job_id]']?.[0];
    const callback = s.fields['callback_url']?.[0] ?? '';
    const sender = gateways.findIndex((g) => callback.startsWith(`${g.url}/`));
    assert.ok(sender >= 0, `send of ${job} names no instance: ${callback}`);
    assert.not.ok(senderOf.has(job!), `job ${job} sent by instance ${senderOf.get(job!)} and by instance ${sender}`);
    senderOf.set(job!, sender);
  }
  for (const id of ids) assert.ok(senderOf.has(id), `job ${id} was sent`);
  const byInstance = [0, 1].map((i) => [...senderOf.values()].filter((s) => s === i).length);
  assert.ok(byInstance[0]! > 0 && byInstance[1]! > 0, `both instances dispatched (instance 0: ${byInstance[0]}, instance 1: ${byInstance[1]})`);

  // Each job is accepted (provider id recorded), whichever instance is asked.
  const views = await Promise.all(ids.map(async (id, i) => json(await fetch(`${gateways[i % 2]!.url}/fax/${id}`))));
  for (const v of views) {
    assert.is(v.status, 'in_progress', `job ${v.id}`);
    assert.ok(v.provider_sid, `job ${v.id} has the provider's id`);
  }
});

test.run();
