import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGitHttpServer, type GitHttpServer } from '../../../../fakes/git-http-server.js';
import { removeDir, startGateway, tempDir, type TestGateway } from '../../../../support/gateway.js';
import { commitFiles, git, seedRepository } from '../../../../support/git-daemon.js';

// Git remotes behind HTTP Basic auth, served by the real `git http-backend` on loopback: a
// credential given per repository (a kept secret, basic or bearer) or by environment variable
// clones and indexes; none or a wrong one fails with a clear error; the secret is never in an
// answer, an error or a log line; the outbound guard still decides which hosts are reached.
const KEY = 'bootstrap-key-git-http-1';
const PASSWORD = 'pa55-http-Secret-41';
const TOKEN = 'bearer-Token-value-77';
const WRONG = 'deploy:wrong-Guess-93';
const dir = tempDir('git-http-');
const root = path.join(dir, 'served');
const work = path.join(dir, 'work');
const users: Record<string, string> = { deploy: PASSWORD };
let server: GitHttpServer;
let gw: TestGateway;

async function call(method: string, route: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${gw.url}${route}`, { method, headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

const search = async (q: string) => (await call('GET', `/api/search?${new URLSearchParams({ q })}`)).body.results.map((r: any) => `${r.repo}:${r.path}`).sort();

/**
 * git run by the test against the fake, asynchronously: the fake answers in this process, so a
 * synchronous git would wait on it forever. Never prompts; the credential only as a header.
 */
function gitRemote(args: string[], credential?: string): Promise<{ ok: boolean; out: string }> {
  const header = credential ? ['-c', `http.extraHeader=Authorization: Basic ${Buffer.from(credential).toString('base64')}`] : [];
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
  return new Promise((resolve) => execFile('git', [...header, ...args], { cwd: dir, env }, (err, stdout, stderr) => resolve({ ok: !err, out: err ? stderr : stdout })));
}

/** Every spelling of a secret that could leak: itself and as the Authorization header carries it. */
const spellings = (secret: string) => [secret, Buffer.from(secret).toString('base64'), Buffer.from(`deploy:${secret}`).toString('base64')];

function assertNoSecret(where: string, text: string): void {
  for (const secret of [PASSWORD, TOKEN, WRONG.split(':')[1]!]) for (const s of spellings(secret)) assert.not.ok(text.includes(s), `${where} holds a secret (${s.slice(0, 6)}…)`);
}

test.before(async () => {
  seedRepository(root, 'secure.git', work, { 'src/vault.ts': 'export const marker = "HttpMarkerOne";\n' });
  server = await startGitHttpServer({ root, users, tokens: { [TOKEN]: 'ci' } });
  gw = await startGateway({ API_KEY: KEY, REPOS: JSON.stringify({ local: work }), REPO: 'local', SECURE_GIT_CREDENTIAL: `deploy:${PASSWORD}` });
});

test.after(async () => {
  await gw?.close();
  await server?.close();
  removeDir(dir);
});

test('the fake is a real smart-HTTP git server: git itself is refused without auth and lists refs with it', async () => {
  const anonymous = await gitRemote(['ls-remote', server.url('secure.git')]);
  assert.not.ok(anonymous.ok);
  assert.match(anonymous.out, /terminal prompts disabled|Authentication failed|401/);
  const listed = await gitRemote(['ls-remote', server.url('secure.git')], `deploy:${PASSWORD}`);
  assert.ok(listed.ok, listed.out);
  assert.match(listed.out, /refs\/heads\/main/);
  assert.ok(server.requests.some((r) => r.status === 401 && r.user === null));
  assert.ok(server.requests.some((r) => r.user === 'deploy' && r.status === 200));
});

test('a per-repository credential (user:password as basic auth): cloned over smart HTTP, main and a tag indexed', async () => {
  server.requests.length = 0;
  const added = await call('POST', '/api/repos', { name: 'secure', url: server.url('secure.git'), revs: ['v*'], credential: `deploy:${PASSWORD}` });
  assert.is(added.status, 201, added.text);
  assert.equal(added.body.revisions.map((r: any) => [r.name, r.indexed_commit === r.commit]).sort(), [['main', true], ['v1.0', true]]);
  assert.is(added.body.credential, '***');
  assertNoSecret('the answer', added.text);
  assert.equal(await search('"HttpMarkerOne" repo:secure'), ['secure:src/vault.ts']);
  assert.equal(await search('"HttpMarkerOne" repo:secure rev:v1.0'), ['secure:src/vault.ts']);
  // The pack came through git-upload-pack (smart HTTP), and every request carried the credential.
  assert.ok(server.requests.some((r) => r.method === 'POST' && r.path === '/secure.git/git-upload-pack' && r.status === 200), JSON.stringify(server.requests));
  assert.ok(server.requests.every((r) => r.user === 'deploy'), JSON.stringify(server.requests.map((r) => [r.path, r.status, r.user])));
});

test('a credential from an environment variable: cloned, and a pushed commit is picked up by a fetch', async () => {
  const added = await call('POST', '/api/repos', { name: 'secure-env', url: server.url('secure.git'), credential_env: 'SECURE_GIT_CREDENTIAL' });
  assert.is(added.status, 201, added.text);
  assert.equal([added.body.credential_env, added.body.credential], ['SECURE_GIT_CREDENTIAL', null]);
  commitFiles(work, { 'src/vault.ts': 'export const marker = "HttpMarkerTwo";\n' }, 'second');
  git(work, 'push', '--quiet', path.join(root, 'secure.git'), 'main');
  const fetched = await call('POST', '/api/repos/secure-env/fetch');
  assert.is(fetched.status, 200, fetched.text);
  assert.is(fetched.body.revisions.find((r: any) => r.name === 'main').indexed_commit, git(work, 'rev-parse', 'main').trim());
  assert.equal(await search('"HttpMarkerTwo" repo:secure-env'), ['secure-env:src/vault.ts']);
  assertNoSecret('the answer', fetched.text);
});

test('a token without a colon is sent as a bearer token', async () => {
  server.requests.length = 0;
  const added = await call('POST', '/api/repos', { name: 'secure-token', url: server.url('secure.git'), credential: TOKEN });
  assert.is(added.status, 201, added.text);
  assert.ok(server.requests.length > 0 && server.requests.every((r) => r.user === 'ci' && r.authorization === `Bearer ${TOKEN}`), JSON.stringify(server.requests.map((r) => [r.path, r.user])));
  assertNoSecret('the answer', added.text);
});

test('without a credential, or with a wrong one, the add fails with a clear error that holds no secret; the entry keeps it', async () => {
  const said = { anonymous: /^git repository "anonymous": git clone failed: the remote needs a credential \(HTTP 401 authentication required\) and none was sent/, wrong: /^git repository "wrong": git clone failed: the remote refused the credential \(HTTP 401 authentication failed\)/ };
  for (const [name, credential] of [['anonymous', undefined], ['wrong', WRONG]] as const) {
    server.requests.length = 0;
    const res = await call('POST', '/api/repos', { name, url: server.url('secure.git'), ...(credential ? { credential } : {}) });
    assert.is(res.status, 502, `${name}: ${res.text}`);
    assert.is(res.body.code, 'git_fetch_failed');
    assert.match(res.body.detail, said[name]);
    assertNoSecret(`${name}'s error`, res.text);
    assert.ok(server.requests.length > 0 && server.requests.every((r) => r.status === 401), `${name} reached the server and was refused`);
    const listed = await call('GET', '/api/repos');
    const entry = listed.body.repositories.find((r: any) => r.name === name);
    assert.match(`git repository "${name}": ${entry.error}`, said[name], 'the entry keeps the same error');
    assertNoSecret('GET /api/repos', listed.text);
    assert.is((await call('DELETE', `/api/repos/${name}`)).status, 200);
  }
});

test('a credential the server stops accepting: the fetch fails with a clear error; the indexed revisions stay searchable', async () => {
  users.deploy = 'rotated-elsewhere';
  try {
    const res = await call('POST', '/api/repos/secure/fetch');
    assert.is(res.status, 502, res.text);
    assert.is(res.body.code, 'git_fetch_failed');
    assert.match(res.body.detail, /^git repository "secure": git fetch failed: the remote refused the credential \(HTTP 401 authentication failed\)/);
    assertNoSecret('the fetch error', res.text);
    assert.equal(await search('"HttpMarkerOne" repo:secure'), ['secure:src/vault.ts'], 'what was indexed stays');
  } finally {
    users.deploy = PASSWORD;
  }
  assert.is((await call('POST', '/api/repos/secure/fetch')).status, 200, 'accepted again');
});

test('the outbound guard still applies: a loopback host OUTBOUND_ALLOW_HOSTS does not name is refused before any request', async () => {
  const other = await startGitHttpServer({ root, users, host: '127.0.0.2' });
  try {
    // Reachable: git itself lists it with the credential.
    const listed = await gitRemote(['ls-remote', other.url('secure.git')], `deploy:${PASSWORD}`);
    assert.match(listed.out, /refs\/heads\/main/);
    other.requests.length = 0;
    const res = await call('POST', '/api/repos', { name: 'elsewhere', url: other.url('secure.git'), credential: `deploy:${PASSWORD}` });
    assert.is(res.status, 422, res.text);
    assert.is(res.body.code, 'git_remote_refused');
    assert.match(res.body.detail, /127\.0\.0\.2.*OUTBOUND_ALLOW_HOSTS/);
    assertNoSecret('the refusal', res.text);
    assert.equal(other.requests, [], 'the credential never left');
  } finally {
    await other.close();
  }
});

test('a password written into the remote URL clones, and shows as *** in every answer', async () => {
  const url = server.url('secure.git').replace('://', `://deploy:${PASSWORD}@`);
  const added = await call('POST', '/api/repos', { name: 'in-url', url });
  assert.is(added.status, 201, added.text);
  assert.is(added.body.url, server.url('secure.git').replace('://', '://***@'));
  assertNoSecret('the answer', added.text);
  const listed = await call('GET', '/api/repos');
  assert.ok(listed.body.repositories.some((r: any) => r.name === 'in-url'));
  assertNoSecret('GET /api/repos', listed.text);
  users.deploy = 'rotated-elsewhere';
  try {
    const failed = await call('POST', '/api/repos/in-url/fetch');
    assert.is(failed.status, 502, failed.text);
    assertNoSecret('the fetch error', failed.text);
    assertNoSecret('GET /api/repos after the error', (await call('GET', '/api/repos')).text);
  } finally {
    users.deploy = PASSWORD;
  }
  assert.is((await call('DELETE', '/api/repos/in-url')).status, 200);
});

test('no log line holds a secret', () => {
  assert.ok(gw.logs.length > 0);
  assertNoSecret('the logs', gw.logs.join('\n'));
});

test.run();
