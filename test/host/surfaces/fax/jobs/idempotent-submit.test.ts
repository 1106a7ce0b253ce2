import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startProviderCFake, type ProviderCFake } from '../../../../fakes/providerc-fake.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { dispatchSettled } from '../../../../support/fax-dispatch.js';

const BOOTSTRAP = 'idem-bootstrap-key-77c1';
const NUMBER = '+15550104444';

// Every behaviour on both databases: the unique (scope, key) is what makes concurrent duplicates one job.
for (const dialect of ['sqlite', 'postgres'] as const) {
  const test = suite(`Idempotency-Key on POST /fax (${dialect})`);
  let gw: TestGateway;
  let fake: ProviderCFake;
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>> | undefined;
  let keyA: string;
  let keyB: string;

  const sendsOf = (jobId: string) => fake.sends.filter((s) => (s.fields.MediaUrl?.[0] ?? '').includes(`/fax/${jobId}/pdf`));
  const submit = (key: string | undefined, file: Buffer | string, to = NUMBER, apiKey = keyA, extra: Record<string, string> = {}) => {
    const form = new FormData();
    form.set('to', to);
    for (const [k, v] of Object.entries(extra)) form.set(k, v);
    form.set('file', new Blob([new Uint8Array(typeof file === 'string' ? Buffer.from(file) : file)]), 'doc');
    return fetch(`${gw.url}/fax`, { method: 'POST', body: form, headers: { 'X-API-Key': apiKey, ...(key === undefined ? {} : { 'Idempotency-Key': key }) } });
  };
  // Every job whatever its status: earlier tests' jobs move between statuses while these run.
  const jobCount = async () => Object.values(await gw.gateway.surfaces.fax.store.countByStatus()).reduce((sum, n) => sum + Number(n), 0);

  test.before(async () => {
    fake = await startProviderCFake({ projectId: 'proj-i', apiToken: 'idem-token-value' });
    if (dialect === 'postgres') db = await freshPostgresDatabase();
    gw = await startGateway({
      ...(db ? { DATABASE_URL: db.url } : {}),
      API_KEY: BOOTSTRAP,
      FAX_BACKEND: 'providerc',
      PROVIDERC_BASE_URL: fake.baseUrl,
      PROVIDERC_PROJECT_ID: 'proj-i',
      PROVIDERC_API_TOKEN: 'idem-token-value',
      PROVIDERC_FAX_FROM: '+15550001111',
      FAX_DISPATCH_POLL_MS: '50',
      LOG_LEVEL: 'warn',
    });
    const mint = async (name: string) => {
      const res = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'X-API-Key': BOOTSTRAP, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, scopes: ['fax:send', 'fax:read'] }) });
      assert.is(res.status, 201, await res.clone().text());
      return (await json(res)).token as string;
    };
    keyA = await mint('client a');
    keyB = await mint('client b');
  });
  test.after(async () => {
    await gw.close();
    await fake.close();
    await db?.drop();
  });

  test('a retried submit with the same key and document answers 200 with the original job and sends nothing more', async () => {
    const pdf = await makePdf(2);
    const first = await submit('order-1001', pdf);
    assert.is(first.status, 202, await first.clone().text());
    const original = await json(first);
    await until(() => sendsOf(original.id).length === 1, 8000);
    const again = await submit('order-1001', pdf, '+1 (555) 010-4444');
    assert.is(again.status, 200, await again.clone().text());
    const replay = await json(again);
    assert.is(replay.id, original.id);
    assert.equal(Object.keys(replay).filter((k) => !['provider_sid', 'error', 'pages'].includes(k)).sort(), Object.keys(original).filter((k) => !['provider_sid', 'error', 'pages'].includes(k)).sort(), 'the same body shape as the 202 answer');
    assert.ok(Array.isArray(replay.attempts));
    // Counted once no job (a wrongly queued second one included) can be sent any more.
    await dispatchSettled(gw.gateway.surfaces.fax.store.db);
    assert.is(sendsOf(original.id).length, 1, 'the provider saw one send');
    assert.is(fake.sends.filter((s) => s.fields.To?.[0] === NUMBER).length, 1);
  });

  test('the same key with another document or number answers 422 idempotency_key_reused, naming what differs', async () => {
    const first = await submit('order-2002', 'first letter\n');
    assert.is(first.status, 202);
    const otherDoc = await submit('order-2002', 'second letter\n');
    assert.is(otherDoc.status, 422);
    const body = await json(otherDoc);
    assert.is(body.code, 'idempotency_key_reused');
    assert.match(body.detail, /different document/);
    const otherNumber = await json(await submit('order-2002', 'first letter\n', '+15550109999'));
    assert.is(otherNumber.code, 'idempotency_key_reused');
    assert.match(otherNumber.detail, /destination number/);
    const otherCover = await json(await submit('order-2002', 'first letter\n', NUMBER, keyA, { cover_subject: 'Invoice' }));
    assert.match(otherCover.detail, /cover page or retry options/);
  });

  test('keys belong to their API key: another caller with the same key makes its own job', async () => {
    const a = await json(await submit('shared-key', 'from a\n', NUMBER, keyA));
    const b = await submit('shared-key', 'from b\n', NUMBER, keyB);
    assert.is(b.status, 202, 'not a conflict: a different caller');
    assert.is.not((await json(b)).id, a.id);
  });

  test('concurrent duplicates make exactly one job; every answer names it', async () => {
    const pdf = await makePdf(1);
    const allJobs = async () => (await gw.gateway.surfaces.fax.store.db.selectFrom('fax_jobs').select('id').execute()).length;
    const before = await allJobs();
    const answers = await Promise.all(Array.from({ length: 8 }, () => submit('burst-3003', pdf)));
    const bodies = await Promise.all(answers.map((r) => json(r)));
    const statuses = answers.map((r) => r.status).sort();
    assert.equal(statuses, [200, 200, 200, 200, 200, 200, 200, 202], JSON.stringify(bodies));
    const ids = new Set(bodies.map((b) => b.id));
    assert.is(ids.size, 1);
    const [id] = [...ids];
    await until(() => sendsOf(id).length === 1, 8000);
    await dispatchSettled(gw.gateway.surfaces.fax.store.db);
    assert.is(sendsOf(id).length, 1, 'one send for the burst');
    assert.is((await allJobs()) - before, 1, 'one job stored for the burst');
    const rows = await gw.gateway.surfaces.fax.store.db.selectFrom('fax_idempotency_keys').selectAll().where('key', '=', 'burst-3003').execute();
    assert.is(rows.length, 1);
  });

  test('expired keys are swept, and the key then makes a new job', async () => {
    const first = await json(await submit('order-4004', 'once\n'));
    const keys = gw.gateway.surfaces.fax.idempotencyKeys;
    assert.is(await keys.sweepExpired(Date.now()), 0, 'nothing expires before FAX_IDEMPOTENCY_TTL_HOURS');
    const removed = await keys.sweepExpired(Date.now() + 24 * 3600_000 + 1000);
    assert.ok(removed >= 1);
    const left = await gw.gateway.surfaces.fax.store.db.selectFrom('fax_idempotency_keys').selectAll().execute();
    assert.is(left.length, 0);
    const again = await submit('order-4004', 'once\n');
    assert.is(again.status, 202);
    assert.is.not((await json(again)).id, first.id);
  });

  test('a malformed Idempotency-Key answers 400 and stores nothing', async () => {
    const before = await jobCount();
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const res = await submit(bad, 'text\n');
      assert.is(res.status, 400, bad);
      const body = await json(res);
      assert.is(body.code, 'validation_error');
      assert.match(body.detail, /Idempotency-Key/);
    }
    assert.is(await jobCount(), before);
  });

  test('without a key every submit is a new job (as before)', async () => {
    const a = await json(await postFax(gw.url, NUMBER, 'same\n', { 'X-API-Key': keyA }));
    const b = await json(await postFax(gw.url, NUMBER, 'same\n', { 'X-API-Key': keyA }));
    assert.is.not(a.id, b.id);
  });

  test.run();
}
