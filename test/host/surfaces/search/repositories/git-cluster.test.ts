import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { commitFiles, git, startGitDaemon, type GitDaemon } from '../../../../support/git-daemon.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';

/**
 * Two gateways on one PostgreSQL database, each with its own DATA_DIR (its own mirrors, trees
 * and indexes), as two machines of a cluster: the git repository list is the table they share.
 */
const KEY = 'bootstrap-key-git-cluster-1';
const dir = tempDir('git-cluster-');
const served = path.join(dir, 'served');
const work = path.join(dir, 'work');
let pgdb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let daemon: GitDaemon;
let a: TestGateway;
let b: TestGateway;

async function call(gw: TestGateway, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}${route}`, { method, headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await json(res) };
}

const found = async (gw: TestGateway, q: string) => ((await call(gw, 'GET', `/api/search?${new URLSearchParams({ q })}`)).body.results ?? []).map((r: any) => `${r.repo}:${r.path}`).sort();
const indexedOn = async (gw: TestGateway, rev: string) => (await call(gw, 'GET', '/api/repos')).body.repositories.find((r: any) => r.name === 'billing')?.revisions.find((r: any) => r.name === rev)?.indexed_commit;

test.before(async () => {
  mkdirSync(served, { recursive: true });
  mkdirSync(work, { recursive: true });
  git(served, 'init', '--quiet', '--bare', '--initial-branch=main', 'billing.git');
  git(work, 'init', '--quiet', '--initial-branch=main');
  commitFiles(work, { 'src/pay.ts': 'export const version = "MarkerClusterOne";\n' }, 'first');
  git(work, 'checkout', '--quiet', '-b', 'dev');
  commitFiles(work, { 'src/dev.ts': 'export const flag = "MarkerClusterDev";\n' }, 'dev work');
  git(work, 'checkout', '--quiet', 'main');
  git(work, 'push', '--quiet', path.join(served, 'billing.git'), 'main', 'dev');
  [pgdb, daemon] = await Promise.all([freshPostgresDatabase(), startGitDaemon(served, 'billing.git')]);
  const env = { API_KEY: KEY, DATABASE_URL: pgdb.url, REPOS: JSON.stringify({ local: work }), REPO: 'local', GIT_SYNC_SECONDS: '0.2', CONFIG_SYNC_SECONDS: '0.2', CLUSTER_LEASE_SECONDS: '1' };
  a = await startGateway(env, { watch: false });
  b = await startGateway(env, { watch: false });
});

test.after(async () => {
  await a?.close();
  await b?.close();
  await daemon?.stop();
  await pgdb?.drop();
  removeDir(dir);
});

test('a repository added on one instance is cloned and indexed by the other, credential masked there too', async () => {
  const added = await call(a, 'POST', '/api/repos', { name: 'billing', url: daemon.url('billing.git'), revs: ['dev'], credential: 'user:cluster-s3cr3t' });
  assert.is(added.status, 201, JSON.stringify(added.body));
  const listed = await call(b, 'GET', '/api/repos');
  assert.equal(listed.body.repositories.map((r: any) => [r.name, r.credential]), [['billing', '***']], 'listed by the other at once');
  assert.not.ok(JSON.stringify(listed.body).includes('s3cr3t'));
  await until(async () => (await found(b, '"MarkerClusterOne" repo:billing')).length > 0, 60_000, 100);
  assert.equal(await found(b, '"MarkerClusterOne" repo:billing'), ['billing:src/pay.ts']);
  await until(async () => (await found(b, '"MarkerClusterDev" repo:billing rev:dev')).length > 0, 60_000, 100);
  assert.ok(existsSync(path.join(b.dataDir, 'git', 'billing.git', 'HEAD')), 'its own mirror');
  assert.is((await call(b, 'POST', '/api/repos', { name: 'billing', url: daemon.url('billing.git') })).body.code, 'repository_exists', 'the name is taken for the cluster');
});

test('a commit fetched by one instance is fetched and indexed by the other', async () => {
  commitFiles(work, { 'src/pay.ts': 'export const version = "MarkerClusterTwo";\n' }, 'second');
  git(work, 'push', '--quiet', daemon.url('billing.git'), 'main');
  const head = git(work, 'rev-parse', 'main').trim();
  const fetched = await call(a, 'POST', '/api/repos/billing/fetch');
  assert.is(fetched.status, 200, JSON.stringify(fetched.body));
  await until(async () => (await indexedOn(b, 'main')) === head, 60_000, 100);
  assert.equal(await found(b, '"MarkerClusterTwo" repo:billing'), ['billing:src/pay.ts']);
  assert.equal(await found(b, '"MarkerClusterOne" repo:billing'), []);
});

test('the scheduled fetch runs under the cluster lease search.git-fetch: one instance holds it, both end up indexing the pushed commit', async () => {
  commitFiles(work, { 'src/pay.ts': 'export const version = "MarkerClusterThree";\n' }, 'third');
  git(work, 'push', '--quiet', daemon.url('billing.git'), 'main');
  const head = git(work, 'rev-parse', 'main').trim();
  assert.is((await call(a, 'POST', '/api/config', { GIT_FETCH_MINUTES: 0.01 })).status, 200);
  try {
    await until(async () => (await indexedOn(a, 'main')) === head && (await indexedOn(b, 'main')) === head, 60_000, 100);
    const holders = [a, b].filter((g) => g.gateway.platform.leases.holds('search.git-fetch'));
    assert.is(holders.length, 1, 'exactly one instance holds the fetch lease');
  } finally {
    assert.is((await call(a, 'POST', '/api/config', { GIT_FETCH_MINUTES: 0 })).status, 200);
  }
});

test('a repository removed on one instance is dropped by the other: mirror and trees gone, searches answer 404', async () => {
  assert.is((await call(b, 'DELETE', '/api/repos/billing')).status, 200);
  await until(() => !existsSync(path.join(a.dataDir, 'git', 'billing.git')), 30_000, 50);
  assert.not.ok(existsSync(path.join(a.dataDir, 'git-trees', 'billing')));
  assert.is((await call(a, 'GET', `/api/search?${new URLSearchParams({ q: '"MarkerClusterThree"', repo: 'billing' })}`)).body.code, 'repository_not_found');
  assert.is((await call(a, 'DELETE', '/api/repos/billing')).status, 404);
});

test.run();
