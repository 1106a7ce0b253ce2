import { createHash, createHmac } from 'node:crypto';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DocumentTokens } from '../../../host/surfaces/fax/jobs/document-tokens.js';
import { FAX_TOKEN_SCOPE } from '../../../host/surfaces/fax/jobs/job-documents.js';
import { startAlertReceiver, type AlertReceiver } from '../../fakes/alert-receiver.js';
import { makePdf } from '../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../fakes/providera-fake.js';
import { startChildGateway, type ChildGateway } from '../../support/child-gateway.js';
import { json, postFax, removeDir, tempDir, until } from '../../support/gateway.js';
import { freshPostgresDatabase } from '../../support/pg.js';
import { smallRepo, writeRepoFile } from '../surfaces/search/search-repo-fixture.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server, type S3Server } from '../../support/s3-server.js';
import { openGatewayDatabase, type GatewayDatabase } from '../../support/database.js';
import { alertOutboxDrained } from '../../support/alert-outbox.js';
import { packedPlugin, uploadPackage } from '../../support/plugin-package.js';

/**
 * The cluster proof: three gateway processes on one PostgreSQL database and one S3 server (s3rver),
 * each with its own DATA_DIR, sending through one provider fake (which counts every send) and
 * alerting one receiver. Requests go round-robin over the three, as a load balancer sends them.
 * Leases, polls and checks are short so the whole file takes well under a minute.
 */
const ADMIN = 'sb-cluster-bootstrap-key-7c1e';
const SECRET = 'pa-cluster-secret-41d9';
let pgdb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let s3: S3Server;
let fake: ProviderAFake;
let receiver: AlertReceiver;
let db: GatewayDatabase;
let gateways: ChildGateway[] = [];
const dirs: string[] = [];
/** The three, in a fixed order; the proof's requests cycle through them. */
let at: (i: number) => ChildGateway;
let faxKey = '';
let repo = '';

const admin = { 'x-api-key': ADMIN };
const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const sentTimes = (jobId: string) => [...fake.faxes.values()].filter((f) => f.tags.job_id === jobId).length;

async function jobOn(g: ChildGateway, id: string) {
  return json(await fetch(`${g.url}/fax/${id}`, { headers: { 'x-api-key': faxKey } }));
}

async function mintKey(g: ChildGateway, body: Record<string, unknown>) {
  const res = await fetch(`${g.url}/admin/api-keys`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.is(res.status, 201, await res.clone().text());
  return json(res);
}

test.before(async () => {
  repo = smallRepo();
  [pgdb, s3, fake, receiver] = await Promise.all([freshPostgresDatabase(), startS3Server(['artifacts']), startProviderAFake({ apiKey: 'k', apiSecret: SECRET }), startAlertReceiver()]);
  const env = (dataDir: string): Record<string, string> => ({
    DATA_DIR: dataDir,
    ENV_FILE: `${dataDir}/none.env`,
    DATABASE_URL: pgdb.url,
    API_KEY: ADMIN,
    // Long on purpose: a revoke must not wait for the cache (each request reads its key's row).
    API_KEY_CACHE_SECONDS: '600',
    // GET /fax/{id} is rate-limited per key across the cluster; the proof polls it often.
    MAX_REQUESTS_PER_MINUTE: '100000',
    STORAGE_BACKEND: 'storage-s3',
    S3_BUCKET: 'artifacts',
    S3_PREFIX: 'cluster/',
    S3_ENDPOINT_URL: s3.url,
    S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY,
    FAX_BACKEND: 'providera',
    PROVIDERA_BASE_URL: fake.baseUrl,
    PROVIDERA_API_KEY: 'k',
    PROVIDERA_API_SECRET: SECRET,
    PROVIDERA_TIMEOUT_MS: '3000',
    FAX_RETRY_MAX_ATTEMPTS: '1',
    FAX_LEASE_MS: '1500',
    FAX_DISPATCH_POLL_MS: '100',
    FAX_UNCERTAIN_RECHECK_MS: '200',
    FAX_STATUS_POLL_MS: '300',
    FAX_RECONCILE_INTERVAL_MS: '100',
    INBOUND_ENABLED: 'true',
    CLUSTER_LEASE_SECONDS: '1',
    CONFIG_SYNC_SECONDS: '0.2',
    ALERT_EVAL_INTERVAL_SECONDS: '0.2',
    WEBHOOK_TARGETS: receiver.url,
    ALERT_WEBHOOK_CA_FILE: receiver.caFile!,
    ALERT_WEBHOOK_TIMEOUT: '30',
    // The shared code index, on the same database; its runs are claimed for the cluster.
    RETRIEVAL_BACKEND: 'retrieval-postgres',
    REPOS: JSON.stringify({ demo: repo }),
    REPO: 'demo',
    EMBEDDING_MODEL: '',
  });
  for (let i = 0; i < 3; i++) dirs.push(tempDir());
  gateways = await Promise.all(dirs.map((d) => startChildGateway(env(d))));
  at = (i) => gateways[i % 3]!;
  db = await openGatewayDatabase({ url: pgdb.url, dataDir: dirs[0]! });
  faxKey = (await mintKey(at(0), { name: 'cluster-sender', scopes: ['fax:send', 'fax:read', 'inbound:list', 'inbound:read'] })).token;
});

test.after(async () => {
  await Promise.all(gateways.map((g) => g.kill('SIGKILL')));
  await db?.close();
  await Promise.all([fake?.close(), receiver?.close(), s3?.close()]);
  await pgdb?.drop();
  dirs.forEach(removeDir);
  if (repo) removeDir(repo);
});

test('a key minted on one instance works on all; revoked on another, it is refused by every instance at once', async () => {
  const minted = await mintKey(at(1), { name: 'short-lived', scopes: ['inbound:list'] });
  for (let i = 0; i < 3; i++) assert.is((await fetch(`${at(i).url}/inbound`, { headers: { 'x-api-key': minted.token } })).status, 200, `accepted on instance ${i}`);
  const revoked = await fetch(`${at(2).url}/admin/api-keys/${minted.key_id}`, { method: 'DELETE', headers: admin });
  assert.is(revoked.status, 200);
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${at(i).url}/inbound`, { headers: { 'x-api-key': minted.token } });
    assert.is(res.status, 401, `refused on instance ${i} right after the revoke`);
  }
});

test('one rate limit across the instances: a key allowed 3 a minute gets 3 answers from the three together', async () => {
  const limited = await mintKey(at(0), { name: 'limited', scopes: ['inbound:list'], rate_limit_rpm: 3 });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await fetch(`${at(i).url}/inbound`, { headers: { 'x-api-key': limited.token } })).status);
  assert.equal(statuses, [200, 200, 200, 429]);
});

test('faxes sent across the three: each sent exactly once, its document readable from every instance', async () => {
  const docs = await Promise.all([1, 2, 1, 3, 2, 1].map((pages) => makePdf(pages)));
  const ids: string[] = [];
  for (const [i, pdf] of docs.entries()) {
    const res = await postFax(at(i).url, `+1555010${1000 + i}`, pdf, { 'x-api-key': faxKey });
    assert.is(res.status, 202, await res.clone().text());
    ids.push((await json(res)).id);
  }
  await until(() => ids.every((id) => sentTimes(id) === 1), 20_000, 50);
  const byJob = new Map([...fake.faxes.values()].map((f) => [f.tags.job_id, f]));
  // Five succeed, the last fails (the alert below counts on one failure among six).
  ids.forEach((id, i) => fake.setStatus(byJob.get(id)!.id, i === 5 ? 'failure' : 'success', i === 5 ? 0 : 1));
  for (const [i, id] of ids.entries()) {
    const job = await until(async () => {
      const j = await jobOn(at(i + 1), id);
      return j.status === 'SUCCESS' || j.status === 'FAILED' ? j : undefined;
    }, 20_000, 100);
    assert.is(job.status, i === 5 ? 'FAILED' : 'SUCCESS', JSON.stringify(job));
  }
  for (const id of ids) assert.is(sentTimes(id), 1, `job ${id} sent once`);
  assert.is(fake.sends.length, 6, 'six sends reached the provider, no more');
  const tokens = await DocumentTokens.load(db.db);
  for (const [i, id] of ids.entries()) {
    for (let g = 0; g < 3; g++) {
      const res = await fetch(`${at(g).url}/fax/${id}/pdf?token=${tokens.issue(FAX_TOKEN_SCOPE, id, 60_000)}`);
      assert.is(res.status, 200, `job ${i} document on instance ${g}`);
      assert.is(sha(new Uint8Array(await res.arrayBuffer())), sha(docs[i]!), `job ${i} document on instance ${g} is the one sent`);
    }
  }
});

test('an inbound fax received by one instance is listed and downloadable on the others', async () => {
  const pdf = await makePdf(2);
  const body = JSON.stringify({ fax: { id: 9001, from: '+15550009001', to: '+15550000002', num_pages: 2, status: 'success', file_url: fake.addMedia('9001.pdf', pdf) } });
  const res = await fetch(`${at(1).url}/providera-inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-providera-signature': createHmac('sha256', SECRET).update(body).digest('hex') },
    body,
  });
  assert.ok(res.ok, `${res.status} ${await res.text()}`);
  for (const g of [2, 0]) {
    const list = await json(await fetch(`${at(g).url}/inbound`, { headers: { 'x-api-key': faxKey } }));
    assert.is(list.faxes.length, 1, JSON.stringify(list));
    const file = await fetch(`${at(g).url}/inbound/${list.faxes[0].id}/pdf`, { headers: { 'x-api-key': faxKey } });
    assert.is(file.status, 200);
    assert.is(sha(new Uint8Array(await file.arrayBuffer())), sha(pdf));
  }
});

test('a fax prepared on one instance is sent by approval on another, once; a third refuses its reuse', async () => {
  const pdf = await makePdf(1);
  const form = new FormData();
  form.set('to', '+15550107001');
  form.set('file', new Blob([new Uint8Array(pdf)]), 'doc.pdf');
  const prepared = await fetch(`${at(0).url}/fax/prepare`, { method: 'POST', body: form, headers: { 'x-api-key': faxKey } });
  assert.is(prepared.status, 201, await prepared.clone().text());
  const preview = await json(prepared);
  const send = (g: number) => fetch(`${at(g).url}/fax/approvals/${preview.approval_id}/send`, { method: 'POST', headers: { 'x-api-key': faxKey, 'content-type': 'application/json' }, body: JSON.stringify({ sha256: sha(pdf) }) });
  const sent = await send(1);
  assert.is(sent.status, 202, await sent.clone().text());
  const job = await json(sent);
  const reused = await send(2);
  assert.is(reused.status, 409, await reused.clone().text());
  assert.is((await json(reused)).code, 'approval_used');
  await until(() => sentTimes(job.id) === 1, 20_000, 50);
  const sentFax = [...fake.faxes.values()].find((f) => f.tags.job_id === job.id)!;
  fake.setStatus(sentFax.id, 'success', 1);
  await until(async () => ((await jobOn(at(2), job.id)).status === 'SUCCESS' ? true : undefined), 20_000, 100);
  assert.is(sentTimes(job.id), 1, 'sent once');
  const tokens = await DocumentTokens.load(db.db);
  const doc = await fetch(`${at(2).url}/fax/${job.id}/pdf?token=${tokens.issue(FAX_TOKEN_SCOPE, job.id, 60_000)}`);
  assert.is(sha(new Uint8Array(await doc.arrayBuffer())), sha(pdf), 'the approved document is the one sent');
});

test('settings saved on one instance apply on all; the alert they arm fires once and is delivered once', async () => {
  // One FAILED of six finished: below the default rule (5 jobs, 50%), above the one set now.
  await new Promise((r) => setTimeout(r, 1000));
  assert.is(receiver.received.filter((r) => r.body?.type === 'fax_failure_rate').length, 0, 'not firing under the default rule');
  const saved = await fetch(`${at(0).url}/api/config`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ ALERT_FAX_FAILURE_MIN_JOBS: 1, ALERT_FAX_FAILURE_RATE: 0.1 }) });
  assert.is(saved.status, 200, await saved.clone().text());
  for (const g of [1, 2]) {
    await until(async () => (await json(await fetch(`${at(g).url}/api/config`, { headers: admin }))).config.ALERT_FAX_FAILURE_RATE === 0.1, 10_000, 100);
  }
  await until(() => receiver.received.some((r) => r.body?.type === 'fax_failure_rate'), 15_000, 50);
  // Counted once the outbox is drained: the firing notice was delivered and nothing else waits.
  await alertOutboxDrained(db.db);
  const notices = receiver.received.filter((r) => r.body?.type === 'fax_failure_rate');
  assert.is(notices.length, 1, `delivered once: ${JSON.stringify(notices.map((n) => n.body))}`);
  assert.is(notices[0]!.body.status, 'firing');
  const eventIds = receiver.received.map((r) => r.body?.event_id);
  assert.is(new Set(eventIds).size, eventIds.length, 'no notice delivered twice');
});

test('plugin settings saved on one instance apply on the others', async () => {
  const put = await fetch(`${at(0).url}/plugins/fax-sim/config`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ settings: { delayMs: 4321 } }) });
  assert.is(put.status, 200, await put.clone().text());
  for (const g of [1, 2]) {
    const view = await until(async () => {
      const v = await json(await fetch(`${at(g).url}/plugins/fax-sim/config`, { headers: admin }));
      return v.settings?.delayMs === 4321 ? v : undefined;
    }, 10_000, 100);
    assert.is.not(view.sources.delayMs, 'env');
  }
});

test('a plugin package installed on one instance runs on all at that version; a newer one too; rolled back on another, everywhere', async () => {
  const src = tempDir();
  dirs.push(src);
  const install = async (g: number, bytes: Buffer) => {
    const res = await uploadPackage(at(g).url, bytes, admin);
    assert.is(res.status, 201, await res.clone().text());
  };
  const activeEverywhere = async (version: string) => {
    for (let g = 0; g < 3; g++) {
      await until(async () => {
        const v = await json(await fetch(`${at(g).url}/plugins/shipped`, { headers: admin }));
        return v.state === 'active' && v.version === version ? v : undefined;
      }, 20_000, 100);
      const listed = await json(await fetch(`${at(g).url}/plugins/shipped/versions`, { headers: admin }));
      assert.is(listed.current, version, `instance ${g} lists ${version} as current`);
    }
  };
  const [first, second] = [await packedPlugin(src, 'shipped', '1.0.0'), await packedPlugin(src, 'shipped', '2.0.0')];
  await install(0, first);
  await activeEverywhere('1.0.0');
  await install(1, second);
  await activeEverywhere('2.0.0');
  const back = await fetch(`${at(2).url}/plugins/shipped/rollback`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{}' });
  assert.is(back.status, 200, await back.clone().text());
  assert.equal((await json(back)).to, '1.0.0');
  await activeEverywhere('1.0.0');
});

test('an index run started on one instance is the cluster\'s: the others answer its status, refuse a second, search the shared index while it runs, then search what it wrote', async () => {
  const get = async (g: number, p: string) => json(await fetch(`${at(g).url}${p}`, { headers: admin }));
  const start = (g: number) => fetch(`${at(g).url}/api/index/start`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ repo: 'demo' }) });
  const status = (g: number) => get(g, '/api/index/status?repo=demo');
  const paths = async (g: number, q: string) => {
    const found = await get(g, `/api/search?repo=demo&q=${encodeURIComponent(q)}`);
    assert.ok(Array.isArray(found.results), JSON.stringify(found));
    return (found.results as Array<{ path: string }>).map((r) => r.path);
  };
  const first = await start(0);
  assert.is(first.status, 202, await first.clone().text());
  const firstId = (await json(first)).id;
  const done = await until(async () => {
    const s = await status(1);
    return s.run?.id === firstId && s.run.state !== 'running' ? s : undefined;
  }, 40_000, 100);
  assert.is(done.run.state, 'finished', JSON.stringify(done));
  assert.ok((await paths(2, 'parseHttpHeader')).includes('src/http/header-parser.ts'), 'instance 2 searches what instance 0 indexed');

  // A second run, held mid-write: its session waits on the sources table, its work not committed.
  writeRepoFile(repo, 'src/ledger/settlement.ts', 'export function settleLedgerBalances(entries: number[]) {\n  return entries.reduce((a, b) => a + b, 0);\n}\n');
  const holder = new pg.Client({ connectionString: pgdb.url });
  await holder.connect();
  let held = true;
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE retrieval_sources IN SHARE MODE');
    const second = await start(1);
    assert.is(second.status, 202, await second.clone().text());
    const secondId = (await json(second)).id;
    await until(async () => (await holder.query("SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'retrieval_sources' AND NOT l.granted")).rowCount! > 0, 30_000, 50);
    for (const g of [0, 2]) {
      const s = await status(g);
      assert.is(s.run.id, secondId, `instance ${g} reports the run instance 1 does`);
      assert.is(s.run.state, 'running');
      const refused = await start(g);
      assert.is(refused.status, 409, `instance ${g} refuses a second run`);
      assert.is((await json(refused)).code, 'index_run_running');
      assert.ok((await paths(g, 'parseHttpHeader')).includes('src/http/header-parser.ts'), `instance ${g} searches the shared index during the run`);
      assert.not.ok((await paths(g, 'settleLedgerBalances')).includes('src/ledger/settlement.ts'), `instance ${g} does not see the run's uncommitted work`);
    }
    await holder.query('ROLLBACK');
    held = false;
    const after = await until(async () => {
      const s = await status(2);
      return s.run?.id === secondId && s.run.state !== 'running' ? s : undefined;
    }, 40_000, 100);
    assert.is(after.run.state, 'finished', JSON.stringify(after));
  } finally {
    if (held) await holder.query('ROLLBACK').catch(() => {});
    await holder.end();
  }
  for (const g of [0, 2]) assert.ok((await paths(g, 'settleLedgerBalances')).includes('src/ledger/settlement.ts'), `instance ${g} searches the second run's work`);
});

test('SIGKILL of an instance mid-send: the others finish its jobs, nothing lost or sent twice', async () => {
  const before = fake.sends.length;
  // The provider stores the next faxes and never answers: their senders are mid-send.
  fake.hangAfterAccept(3);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await postFax(at(i).url, `+1555020${1000 + i}`, await makePdf(1), { 'x-api-key': faxKey });
    assert.is(res.status, 202);
    ids.push((await json(res)).id);
  }
  await until(() => ids.every((id) => sentTimes(id) === 1), 20_000, 50);
  const owners = await db.db.selectFrom('fax_jobs').select(['id', 'lease_owner']).where('id', 'in', ids).execute();
  const victim = gateways.find((g) => owners.some((o) => o.lease_owner?.includes(`:${g.pid}:`)));
  assert.ok(victim, `a living instance holds one of the jobs: ${JSON.stringify(owners)}`);
  const held = owners.filter((o) => o.lease_owner?.includes(`:${victim!.pid}:`)).map((o) => o.id);
  await victim!.kill('SIGKILL');
  const survivors = gateways.filter((g) => g !== victim);
  // The victim's jobs are taken over once their lease expires; every send is resolved by asking
  // the provider (it has them), never by sending again.
  for (const id of ids) {
    const job = await until(async () => {
      const j = await jobOn(survivors[0]!, id);
      return j.provider_sid ? j : undefined;
    }, 20_000, 100);
    fake.setStatus(job.provider_sid, 'success', 1);
  }
  for (const [i, id] of ids.entries()) {
    const job = await until(async () => {
      const j = await jobOn(survivors[i % 2]!, id);
      return j.status === 'SUCCESS' ? j : undefined;
    }, 20_000, 100);
    assert.is(job.status, 'SUCCESS');
  }
  for (const id of ids) assert.is(sentTimes(id), 1, `job ${id} sent once${held.includes(id) ? ' (it was the killed instance\'s)' : ''}`);
  assert.is(fake.sends.length, before + 3, 'three more sends, no more');
  // nothing lost: every job of the proof is final on the survivors, and the artifacts are still there
  const rows = await db.db.selectFrom('fax_jobs').select(['id', 'status']).execute();
  assert.is(rows.length, 10, "six, one by approval, three here");
  assert.ok(rows.every((r) => r.status === 'SUCCESS' || r.status === 'FAILED'), JSON.stringify(rows));
  // the once-per-cluster work is held by a survivor now (taken over if the killed one held it)
  const leases = await db.db.selectFrom('cluster_leases').select(['name', 'owner', 'lease_until']).execute();
  for (const name of ['fax.reconcile', 'alerts.evaluate']) {
    const lease = await until(async () => {
      const row = (await db.db.selectFrom('cluster_leases').select(['owner', 'lease_until']).where('name', '=', name).executeTakeFirst());
      return row && Number(row.lease_until) > Date.now() && survivors.some((g) => row.owner.includes(`:${g.pid}:`)) ? row : undefined;
    }, 10_000, 100).catch(() => undefined);
    assert.ok(lease, `${name} is held by a survivor: ${JSON.stringify(leases)}`);
  }
  const tokens = await DocumentTokens.load(db.db);
  for (const g of survivors) for (const id of held) assert.is((await fetch(`${g.url}/fax/${id}/pdf?token=${tokens.issue(FAX_TOKEN_SCOPE, id, 60_000)}`)).status, 200);
});

test.run();
