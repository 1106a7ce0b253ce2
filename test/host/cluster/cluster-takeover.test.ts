import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../fakes/fax-document-server.js';
import { startChildGateway, type ChildGateway } from '../../support/child-gateway.js';
import { json, postFax, removeDir, tempDir, until } from '../../support/gateway.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server, type S3Server } from '../../support/s3-server.js';

/**
 * Takeover, black box: three gateway processes on one PostgreSQL server of this file's own (the
 * second case stops it) and one S3 server, sending through fax-sim, whose faxes live in the
 * shared storage. Every send fax-sim took is an attempt in its object for the job
 * (`plugins/fax-sim/faxes/<job id>.json`), read here straight from s3rver's directory: that is
 * the send count.
 */
const ADMIN = 'sb-takeover-bootstrap-key-3f8a';
const LEASE_MS = 1500;
/** The bound of each case: every job final by then, or the case fails. */
const DEADLINE_MS = 30_000;

let server: PostgresServer;
let s3: S3Server;
let gateways: ChildGateway[] = [];
const dirs: string[] = [];
let db: pg.Client;
let faxKey = '';

function env(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    ENV_FILE: `${dataDir}/none.env`,
    DATABASE_URL: server.url,
    API_KEY: ADMIN,
    MAX_REQUESTS_PER_MINUTE: '100000',
    STORAGE_BACKEND: 'storage-s3',
    S3_BUCKET: 'artifacts',
    S3_PREFIX: 'takeover/',
    S3_ENDPOINT_URL: s3.url,
    S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY,
    FAX_BACKEND: 'fax-sim',
    FAX_SIM_SECRET: 'fax-sim-cluster-secret-5c2e91',
    // Long enough that the victim holds accepted faxes whose callbacks die with it.
    FAX_SIM_DELAY_MS: '1500',
    FAX_LEASE_MS: String(LEASE_MS),
    FAX_DISPATCH_POLL_MS: '100',
    FAX_DISPATCH_CONCURRENCY: '2',
    FAX_RETRY_BASE_MS: '100',
    FAX_UNCERTAIN_RECHECK_MS: '200',
    FAX_STATUS_POLL_MS: '300',
    FAX_RECONCILE_INTERVAL_MS: '100',
    CLUSTER_LEASE_SECONDS: '1',
  };
}

/** fax-sim's sends of a job: the attempts in its object in the bucket (0 when it has none). */
function sendsOf(jobId: string): number {
  const dir = path.join(s3.directory, 'artifacts', 'takeover', 'plugins', 'fax-sim', 'faxes');
  const file = (() => {
    try {
      return readdirSync(dir).find((f) => f.startsWith(`${jobId}.json`) && f.endsWith('._S3rver_object'));
    } catch {
      return undefined;
    }
  })();
  return file ? (JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { faxes: unknown[] }).faxes.length : 0;
}

/** Submits `n` faxes to `g` at once (a batch), the ids in order. */
async function submit(g: ChildGateway, n: number, tag: number): Promise<string[]> {
  const pdf = await makePdf(1);
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await postFax(g.url, `+1555${tag}${String(1000 + i).padStart(6, '0')}`, pdf, { 'x-api-key': faxKey });
      assert.is(res.status, 202, await res.clone().text());
      return (await json(res)).id as string;
    }),
  );
}

/** Polls GET /fax/{id} over `on` until every job is final; the statuses then. */
async function allFinal(on: ChildGateway[], ids: string[]): Promise<Map<string, string>> {
  const final = new Map<string, string>();
  let i = 0;
  await until(async () => {
    for (const id of ids) {
      if (final.has(id)) continue;
      const job = await json(await fetch(`${on[i++ % on.length]!.url}/fax/${id}`, { headers: { 'x-api-key': faxKey } }));
      if (job.status === 'SUCCESS' || job.status === 'FAILED') final.set(id, job.status);
    }
    return final.size === ids.length;
  }, DEADLINE_MS, 100).catch(async () => {
    const rows = await db.query('SELECT id, status, dispatch_state, lease_owner, error FROM fax_jobs WHERE id = ANY($1) ORDER BY id', [ids]);
    throw new Error(`not every job final within ${DEADLINE_MS} ms: ${JSON.stringify(rows.rows)}`);
  });
  return final;
}

test.before(async () => {
  [server, s3] = await Promise.all([startPostgresServer(), startS3Server(['artifacts'])]);
  for (let i = 0; i < 3; i++) dirs.push(tempDir());
  gateways = await Promise.all(dirs.map((d) => startChildGateway(env(d))));
  db = new pg.Client({ connectionString: server.url });
  db.on('error', () => {}); // the outage case ends this session; it is opened again after
  await db.connect();
  const minted = await fetch(`${gateways[0]!.url}/admin/api-keys`, { method: 'POST', headers: { 'x-api-key': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'takeover', scopes: ['fax:send', 'fax:read'] }) });
  assert.is(minted.status, 201, await minted.clone().text());
  faxKey = (await json(minted)).token;
});

test.after(async () => {
  await Promise.all(gateways.map((g) => g.kill('SIGKILL')));
  await db?.end().catch(() => {});
  await s3?.close();
  server?.stop();
  dirs.forEach(removeDir);
});

test('SIGKILL of the instance that took a batch: the others take over its queued and in-flight jobs, each sent exactly once', async () => {
  const [victim, ...survivors] = gateways as [ChildGateway, ...ChildGateway[]];
  const ids = await submit(victim, 12, 2);
  // Mid-batch: the victim holds a job it claimed (about to send it, or sending it).
  await until(async () => (await db.query('SELECT 1 FROM fax_jobs WHERE id = ANY($1) AND lease_owner LIKE $2', [ids, `%:${victim.pid}:%`])).rowCount! > 0, 10_000, 5);
  await victim.kill('SIGKILL');
  // Taken over within FAX_LEASE_MS plus one poll (and slack for a loaded machine): no row keeps the dead one's lease.
  await until(async () => (await db.query('SELECT 1 FROM fax_jobs WHERE id = ANY($1) AND lease_owner LIKE $2', [ids, `%:${victim.pid}:%`])).rowCount === 0, LEASE_MS + 100 + 3000, 20);
  const final = await allFinal(survivors, ids);
  for (const id of ids) assert.is(final.get(id), 'SUCCESS', `job ${id}`);
  for (const id of ids) assert.is(sendsOf(id), 1, `job ${id} sent exactly once`);
});

test('the database stopped for 10 s while a batch is in flight: every job ends SUCCESS, sent exactly once; no instance exits or logs a process fault', async () => {
  const live = gateways.filter((g) => g.alive());
  assert.is(live.length, 2);
  const ids = [...(await submit(live[0]!, 6, 3)), ...(await submit(live[1]!, 6, 4))];
  await until(async () => {
    const { rows } = await db.query("SELECT count(*) FILTER (WHERE dispatch_state IN ('sending', 'accepted')) AS flying, count(*) FILTER (WHERE dispatch_state = 'pending') AS waiting FROM fax_jobs WHERE id = ANY($1)", [ids]);
    return Number(rows[0].flying) > 0 && Number(rows[0].waiting) > 0;
  }, 10_000, 5);
  server.pause();
  // The outage itself: a fixed span by design, not a wait for something to happen.
  await new Promise((r) => setTimeout(r, 10_000));
  server.resume();
  await db.end().catch(() => {});
  db = new pg.Client({ connectionString: server.url });
  db.on('error', () => {});
  await db.connect();
  const final = await allFinal(live, ids);
  for (const id of ids) assert.is(final.get(id), 'SUCCESS', `job ${id}`);
  for (const id of ids) assert.is(sendsOf(id), 1, `job ${id} sent exactly once`);
  for (const g of live) {
    assert.ok(g.alive(), 'the instance is still running');
    assert.not.ok(g.output().includes('process fault'), `no unhandled error: ${g.output().split('\n').filter((l) => l.includes('process fault')).join('\n')}`);
  }
});

test.run();
