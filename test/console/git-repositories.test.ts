import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, removeDir, startGateway, tempDir, type TestGateway } from '../support/gateway.js';
import { commitFiles, git, seedRepository, startGitDaemon, type GitDaemon } from '../support/git-daemon.js';

// The Git repositories tab of Code search in Chromium against a real gateway and a real git
// daemon on loopback: added from the page with a branch and a tag, each revision shown indexed
// at its commit; a pushed commit fetched from the page; removed through the confirm dialog; a key
// without search:admin sees why instead of the controls.
const KEY = 'bootstrap-key-console-git-1';
const dir = tempDir('console-git-');
const served = path.join(dir, 'served');
const work = path.join(dir, 'work');
let gw: TestGateway;
let daemon: GitDaemon;
let browser: ConsoleBrowser;

const api = async (method: string, route: string, body?: unknown, key = KEY) => {
  const res = await fetch(`${gw.url}${route}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await json(res) };
};
const head = (rev: string) => git(work, 'rev-parse', rev).trim();

async function useKey(key: string): Promise<void> {
  const { page } = browser;
  await page.goto(`${gw.url}/#/search/repositories`);
  await page.evaluate((k) => sessionStorage.setItem('switchboard.apiKey', k), key);
  await page.reload();
  await page.getByRole('heading', { level: 2, name: 'Git repositories' }).waitFor();
}

test.before(async () => {
  ensureConsoleBuilt();
  seedRepository(served, 'billing.git', work, { 'src/pay.ts': 'export const version = "ConsoleMainOne";\n' }, { 'src/dev.ts': 'export const flag = "ConsoleDevOnly";\n' });
  daemon = await startGitDaemon(served, 'billing.git');
  gw = await startGateway({ API_KEY: KEY, REPOS: JSON.stringify({ local: work }), REPO: 'local' });
  browser = await openBrowser();
});

test.after(async () => {
  await browser?.close();
  await gw?.close();
  await daemon?.stop();
  removeDir(dir);
});

test('add from the page: the default branch, a branch and a tag shown indexed at their commits', async () => {
  const { page } = browser;
  await useKey(KEY);
  await page.getByText('No git repository yet.').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('billing');
  await page.getByLabel('Remote URL').fill(daemon.url('billing.git'));
  await page.getByLabel('Branches and tags (names or globs)').fill('dev, v*');
  await page.getByRole('button', { name: 'Add repository' }).click();
  await page.getByRole('status').getByText(/^Added billing: 3 revisions indexed \(default branch main\)\.$/).waitFor({ timeout: 60_000 });
  const row = page.locator('tr[data-repo="billing"]');
  assert.match(await row.innerText(), new RegExp(daemon.url('billing.git').replace(/[.]/g, '\\.')));
  for (const [rev, kind] of [['main', 'branch, default'], ['dev', 'branch'], ['v1.0', 'tag']] as const) {
    const item = row.locator(`li[data-revision="${rev}"]`);
    assert.is((await item.innerText()).replace(/\s+/g, ' ').trim(), `${rev} ${kind} ${head(rev).slice(0, 12)} indexed`, rev);
  }
  assert.match(await row.innerText(), /dev v\*/, 'the branches and tags chosen');
  // What the page shows is what the API holds, and search reads the branch through rev:.
  const listed = (await api('GET', '/api/repos')).body.repositories;
  assert.equal(listed.map((r: { name: string }) => r.name), ['billing']);
  const found = await api('GET', `/api/search?${new URLSearchParams({ q: '"ConsoleDevOnly" repo:billing rev:dev' })}`);
  assert.equal(found.body.results.map((r: { path: string }) => r.path), ['src/dev.ts']);
  await checkAccessibility(page, 'git repositories');
  assert.equal(browser.problems, []);
});

test('fetch now: the button shows the fetch under way, then which revisions moved and were indexed', async () => {
  const { page } = browser;
  commitFiles(work, { 'src/pay.ts': 'export const version = "ConsoleMainTwo";\n' }, 'second');
  git(work, 'push', '--quiet', daemon.url('billing.git'), 'main');
  await page.getByRole('button', { name: 'Fetch now billing' }).click();
  // The fetch answers once the moved revision is indexed: meanwhile the row's button says so.
  await page.getByRole('button', { name: 'Fetching… billing' }).waitFor();
  await page.getByRole('status').getByText(`Fetched billing: indexed main → ${head('main').slice(0, 12)}; unchanged dev, v1.0.`).waitFor({ timeout: 60_000 });
  const main = page.locator('tr[data-repo="billing"] li[data-revision="main"]');
  await main.getByText(head('main').slice(0, 12)).waitFor();
  assert.match(await main.innerText(), /indexed$/);
  const fetchedAt = (await api('GET', '/api/repos')).body.repositories[0].fetched_at;
  const shown = await page.evaluate((iso) => new Date(iso).toLocaleString(), fetchedAt);
  assert.ok((await page.locator('tr[data-repo="billing"]').innerText()).includes(shown), `the last fetch time ${shown}`);
  await screenshot(page, 'git-repositories');
  const found = await api('GET', `/api/search?${new URLSearchParams({ q: '"ConsoleMainTwo" repo:billing' })}`);
  assert.equal(found.body.results.map((r: { path: string }) => r.path), ['src/pay.ts']);
  assert.equal(browser.problems, []);
});

test('a remote that fails: its error shown in the row; URL credentials and the secret never on the page', async () => {
  const { page } = browser;
  await page.getByLabel('Name', { exact: true }).fill('private');
  await page.getByLabel('Remote URL').fill('http://deploy:url-password-9@127.0.0.1:1/private.git');
  await page.getByLabel('Credential (write-only)').fill('user:form-secret-7');
  await page.getByRole('button', { name: 'Add repository' }).click();
  await page.getByRole('alert').getByText(/\(502 git_fetch_failed\)/).waitFor({ timeout: 30_000 });
  assert.is(await page.getByLabel('Credential (write-only)').inputValue(), '', 'the secret leaves the form');
  assert.is(await page.getByLabel('Credential (write-only)').getAttribute('type'), 'password');
  const row = page.locator('tr[data-repo="private"]');
  await row.waitFor();
  const text = await row.innerText();
  assert.match(text, /http:\/\/\*\*\*@127\.0\.0\.1:1\/private\.git/);
  assert.match(text, /credential: kept secret/);
  assert.match(text, /git clone failed/, 'the last error');
  const html = await page.content();
  for (const secret of ['form-secret-7', 'url-password-9']) assert.not.ok(html.includes(secret), secret);
  await page.getByRole('button', { name: 'Remove private' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove private' }).click();
  await row.waitFor({ state: 'detached' });
});

test('remove through the confirm dialog: Cancel keeps it, confirming removes it from the page and the API', async () => {
  const { page } = browser;
  await page.getByRole('button', { name: 'Remove billing' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove billing?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.is((await api('GET', '/api/repos')).body.repositories.length, 1, 'Cancel removes nothing');
  await page.getByRole('button', { name: 'Remove billing' }).click();
  await dialog.getByRole('button', { name: 'Remove billing' }).click();
  await page.getByRole('status').getByText('Removed billing: its mirror and trees are gone and searches no longer reach it.').waitFor();
  await page.getByText('No git repository yet.').waitFor();
  assert.equal((await api('GET', '/api/repos')).body.repositories, []);
  assert.equal(browser.problems, []);
});

test('a key without search:admin sees why, and no list, form or button', async () => {
  const { page } = browser;
  const minted = await api('POST', '/admin/api-keys', { name: 'reader', scopes: ['search:read'] });
  assert.is(minted.status, 201, JSON.stringify(minted.body));
  await useKey(minted.body.token);
  await page.getByTestId('git-needs-admin').waitFor();
  assert.is(await page.getByRole('button', { name: 'Add repository' }).count(), 0);
  assert.is(await page.getByLabel('Remote URL').count(), 0);
  await checkAccessibility(page, 'git repositories without search:admin');
  assert.equal(browser.problems, []);
});

test.run();
