import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';
import { commitFiles, git, seedRepository, startGitDaemon, type GitDaemon } from '../../../../support/git-daemon.js';

const KEY = 'bootstrap-key-git-repositories-1';
const dir = tempDir('git-repos-');
const served = path.join(dir, 'served');
const work = path.join(dir, 'work');
let gw: TestGateway;
let daemon: GitDaemon;

async function call(method: string, route: string, body?: unknown, key = KEY): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}${route}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await json(res) };
}

const search = (q: string) => call('GET', `/api/search?${new URLSearchParams({ q })}`);
const paths = (res: { body: any }) => res.body.results.map((r: any) => `${r.repo}:${r.path}`).sort();

test.before(async () => {
  seedRepository(served, 'billing.git', work, { 'src/pay.ts': 'export const version = "MarkerMainOne";\n' }, { 'src/dev.ts': 'export const flag = "MarkerDevOnly";\n' });
  daemon = await startGitDaemon(served, 'billing.git');
  gw = await startGateway({ API_KEY: KEY, REPOS: JSON.stringify({ local: work }), REPO: 'local' });
});

test.after(async () => {
  await gw?.close();
  await daemon?.stop();
  removeDir(dir);
});

test('a git repository added over the API: default branch, a branch and a tag indexed, rev: selects each', async () => {
  const added = await call('POST', '/api/repos', { name: 'billing', url: daemon.url('billing.git'), revs: ['dev', 'v*'] });
  assert.is(added.status, 201, JSON.stringify(added.body));
  assert.is(added.body.default_branch, 'main');
  assert.equal(added.body.revisions.map((r: any) => r.name).sort(), ['dev', 'main', 'v1.0']);
  assert.ok(added.body.revisions.every((r: any) => r.indexed_commit === r.commit));
  assert.equal(paths(await search('"MarkerMainOne" repo:billing')), ['billing:src/pay.ts'], 'the default branch without rev:');
  assert.equal(paths(await search('"MarkerDevOnly" repo:billing')), [], 'dev is not the default');
  assert.equal(paths(await search('"MarkerDevOnly" repo:billing rev:dev')), ['billing:src/dev.ts']);
  assert.equal(paths(await search('"MarkerMainOne" repo:billing rev:v1.0')), ['billing:src/pay.ts']);
  assert.equal(paths(await search('"MarkerMainOne" repo:billing rev:main')), ['billing:src/pay.ts'], 'rev: naming the default branch');
  const listed = await call('GET', '/api/repos');
  assert.equal(listed.body.repositories.map((r: any) => r.name), ['billing']);
  assert.is((await call('POST', '/api/repos', { name: 'billing', url: daemon.url('billing.git') })).body.code, 'repository_exists');
  assert.is((await call('POST', '/api/repos', { name: 'local', url: daemon.url('billing.git') })).status, 409, 'a REPOS name is taken');
});

test('a ranked (bare-word) search with rev: ranks from that revision\'s own index; an unknown rev answers 404 as an exact search does', async () => {
  // "flag" is only in dev's src/dev.ts: the default branch's collection has no file with it.
  const onDev = await search('flag repo:billing rev:dev');
  assert.is(onDev.status, 200, JSON.stringify(onDev.body));
  assert.is(onDev.body.mode, 'ranked');
  assert.ok(paths(onDev).includes('billing:src/dev.ts'), JSON.stringify(onDev.body));
  assert.not.ok(paths(await search('flag repo:billing')).includes('billing:src/dev.ts'), 'without rev: the default branch ranks');
  assert.not.ok(paths(await search('flag repo:billing rev:main')).includes('billing:src/dev.ts'), 'rev: naming the default branch');
  assert.ok(paths(await search('version repo:billing rev:v1.0')).includes('billing:src/pay.ts'), 'a tag');
  const ranked = await search('flag repo:billing rev:nope');
  const exact = await search('"flag" repo:billing rev:nope');
  assert.equal([ranked.status, ranked.body.code], [404, 'revision_not_indexed']);
  assert.equal([exact.status, exact.body.code], [ranked.status, ranked.body.code]);
  assert.ok(ranked.body.detail.includes('dev'), 'the indexed revisions are named');
});

test('a pushed commit is picked up by a fetch and indexed; the tag stays where it was', async () => {
  commitFiles(work, { 'src/pay.ts': 'export const version = "MarkerMainTwo";\n' }, 'second');
  git(work, 'push', '--quiet', daemon.url('billing.git'), 'main');
  const fetched = await call('POST', '/api/repos/billing/fetch');
  assert.is(fetched.status, 200, JSON.stringify(fetched.body));
  const main = fetched.body.revisions.find((r: any) => r.name === 'main');
  assert.is(main.indexed_commit, git(work, 'rev-parse', 'main').trim());
  assert.equal(paths(await search('"MarkerMainTwo" repo:billing')), ['billing:src/pay.ts']);
  assert.equal(paths(await search('"MarkerMainOne" repo:billing')), []);
  assert.equal(paths(await search('"MarkerMainOne" repo:billing rev:v1.0')), ['billing:src/pay.ts']);
});

test('GIT_FETCH_MINUTES fetches on its own: a pushed commit is indexed with no fetch asked, from the moment the setting is saved', async () => {
  commitFiles(work, { 'src/pay.ts': 'export const version = "MarkerMainThree";\n' }, 'third');
  git(work, 'push', '--quiet', daemon.url('billing.git'), 'main');
  const head = git(work, 'rev-parse', 'main').trim();
  const indexedMain = async () => (await call('GET', '/api/repos')).body.repositories.find((r: any) => r.name === 'billing').revisions.find((r: any) => r.name === 'main').indexed_commit;
  assert.is.not(await indexedMain(), head, 'not fetched before the setting');
  // 0.01 minutes: a fetch every 0.6 s.
  const saved = await call('POST', '/api/config', { GIT_FETCH_MINUTES: 0.01 });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  try {
    await until(async () => (await indexedMain()) === head, 30_000, 100);
    assert.equal(paths(await search('"MarkerMainThree" repo:billing')), ['billing:src/pay.ts']);
  } finally {
    assert.is((await call('POST', '/api/config', { GIT_FETCH_MINUTES: 0 })).status, 200);
  }
});

test('MCP: list_git_repositories and fetch_git_repository, for a key with search:admin only', async () => {
  const connect = async (key: string) => {
    const client = new Client({ name: 'git-mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
    return client;
  };
  const tool = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
    return { isError: result.isError === true, body: JSON.parse(result.content[0]!.text) };
  };
  commitFiles(work, { 'src/mcp.ts': 'export const via = "MarkerFetchedOverMcp";\n' }, 'over mcp');
  git(work, 'push', '--quiet', daemon.url('billing.git'), 'main');
  const admin = await connect(KEY);
  try {
    const listed = await tool(admin, 'list_git_repositories');
    assert.equal(listed.body.repositories.map((r: any) => r.name), ['billing']);
    const fetched = await tool(admin, 'fetch_git_repository', { name: 'billing' });
    assert.not.ok(fetched.isError, JSON.stringify(fetched.body));
    assert.is(fetched.body.revisions.find((r: any) => r.name === 'main').indexed_commit, git(work, 'rev-parse', 'main').trim());
    assert.equal(paths(await search('"MarkerFetchedOverMcp" repo:billing')), ['billing:src/mcp.ts']);
    const unknown = await tool(admin, 'fetch_git_repository', { name: 'nope' });
    assert.equal([unknown.isError, unknown.body.code], [true, 'repository_not_found']);
  } finally {
    await admin.close();
  }
  const minted = await call('POST', '/admin/api-keys', { name: 'reader', scopes: ['search:read'] });
  assert.is(minted.status, 201, JSON.stringify(minted.body));
  const reader = await connect(minted.body.token);
  try {
    const { tools } = await reader.listTools();
    const refused = tools.some((t) => t.name === 'list_git_repositories') ? await tool(reader, 'list_git_repositories') : { isError: true, body: { code: 'not listed' } };
    assert.ok(refused.isError, JSON.stringify(refused.body));
    assert.not.ok(JSON.stringify(refused.body).includes('billing.git'));
  } finally {
    await reader.close();
  }
});

test('credentials are kept secret; remotes are checked; bad requests answer their codes; search:admin is needed', async () => {
  const secret = 'user:s3cr3t-token-value';
  const withCred = await call('POST', '/api/repos', { name: 'private', url: 'http://127.0.0.1:1/private.git', credential: secret });
  assert.is(withCred.status, 502, JSON.stringify(withCred.body));
  assert.is(withCred.body.code, 'git_fetch_failed');
  assert.not.ok(JSON.stringify(withCred.body).includes('s3cr3t'));
  const listed = await call('GET', '/api/repos');
  const entry = listed.body.repositories.find((r: any) => r.name === 'private');
  assert.is(entry.credential, '***');
  assert.not.ok(JSON.stringify(listed.body).includes('s3cr3t'));
  assert.not.ok(gw.logs.some((l) => l.includes('s3cr3t')), 'never logged');
  assert.is((await call('DELETE', '/api/repos/private')).status, 200);
  for (const url of ['--upload-pack=touch /tmp/pwned', 'ext::sh -c touch% /tmp/pwned', 'relative/dir']) {
    const res = await call('POST', '/api/repos', { name: 'bad', url });
    assert.is(res.status, 422, url);
    assert.is(res.body.code, 'git_remote_refused');
  }
  const refused = await call('POST', '/api/repos', { name: 'internal', url: 'https://10.1.2.3/r.git' });
  assert.is(refused.body.code, 'git_remote_refused', 'a private address not in OUTBOUND_ALLOW_HOSTS');
  assert.is((await call('POST', '/api/repos', { name: '../x', url: daemon.url('billing.git') })).status, 422);
  assert.is((await call('POST', '/api/repos/nope/fetch')).body.code, 'repository_not_found');
  const mint = await call('POST', '/admin/api-keys', { name: 'reader', scopes: ['search:read'] });
  assert.is((await call('POST', '/api/repos', { name: 'x', url: daemon.url('billing.git') }, mint.body.token)).status, 403);
});

test('POST /api/repos: malformed JSON, an oversized body and no key are refused with their codes, nothing added', async () => {
  const raw = (body: string, headers: Record<string, string> = { 'x-api-key': KEY }) => fetch(`${gw.url}/api/repos`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const malformed = await raw('{"name": "x", "url":');
  assert.is(malformed.status, 400);
  assert.ok((await json(malformed)).code);
  const oversized = await raw(JSON.stringify({ name: 'big', url: daemon.url('billing.git'), pad: 'x'.repeat(2 * 1024 * 1024) }));
  assert.is(oversized.status, 413);
  const anonymous = await raw(JSON.stringify({ name: 'anon', url: daemon.url('billing.git') }), {});
  assert.is(anonymous.status, 401);
  const names = (await call('GET', '/api/repos')).body.repositories.map((r: { name: string }) => r.name);
  for (const name of ['x', 'big', 'anon']) assert.not.ok(names.includes(name), name);
});

test('a removed repository is gone from search, its mirror and trees removed, and stays removed', async () => {
  const removed = await call('DELETE', '/api/repos/billing');
  assert.is(removed.status, 200, JSON.stringify(removed.body));
  const named = await call('GET', `/api/search?${new URLSearchParams({ q: '"MarkerMainTwo"', repo: 'billing' })}`);
  assert.is(named.body.code, 'repository_not_found');
  assert.not.ok(existsSync(path.join(gw.dataDir, 'git', 'billing.git')));
  assert.not.ok(existsSync(path.join(gw.dataDir, 'git-trees', 'billing')));
  assert.not.ok(existsSync(path.join(gw.dataDir, 'git', 'billing.json')), 'nor what this instance indexed of it');
  const rows = await gatewayDb(gw.gateway).selectFrom('git_repositories').select('name').execute();
  assert.not.ok(rows.some((r) => r.name === 'billing'), 'gone from the table');
  assert.is((await call('DELETE', '/api/repos/billing')).status, 404);
});

test.run();
