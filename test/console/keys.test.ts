import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, startGateway, type TestGateway } from '../support/gateway.js';

// The Keys & settings page in Chromium against a real gateway secured by a bootstrap API_KEY:
// mint (the token shown once), revoke and rotate, checked against the API itself; the effective
// settings with their sources and the masked env export; the audit log's live tail.
const BOOTSTRAP = 'console-bootstrap-admin-key-0123456789';
let gw: TestGateway;
let browser: ConsoleBrowser;

const asKey = (token: string, path = '/admin/api-keys') => fetch(`${gw.url}${path}`, { headers: { 'X-API-Key': token } });

test.before(async () => {
  ensureConsoleBuilt();
  gw = await startGateway({ API_KEY: BOOTSTRAP, AUDIT_LOG_ENABLED: 'true' });
  browser = await openBrowser();
  const { page } = browser;
  await page.goto(`${gw.url}/#/keys`);
  await page.evaluate((key) => sessionStorage.setItem('switchboard.apiKey', key), BOOTSTRAP);
  await page.reload();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
});

test('a refused mint shows the API detail and keeps what was typed', async () => {
  const { page } = browser;
  await page.getByRole('heading', { level: 1, name: 'Keys & settings' }).waitFor();
  await page.getByLabel('Name').fill('ci deploy');
  // No scope ticked: the API refuses it (scopes needs at least one).
  await page.getByRole('button', { name: 'Mint key' }).click();
  const alert = page.locator('#keys-h ~ form .error');
  await alert.waitFor();
  assert.match(await alert.innerText(), /scopes/);
  assert.match(await alert.innerText(), /\(4\d\d /);
  assert.is(await page.getByLabel('Name').inputValue(), 'ci deploy');
});

let minted = '';

test('a minted token is shown once, works, and is gone after a reload; revoked, the API refuses it', async () => {
  const { page } = browser;
  // Scopes come from the API's own description of the mint route.
  await page.getByRole('group', { name: 'Scopes' }).getByLabel('keys:manage').check();
  await page.getByRole('button', { name: 'Mint key' }).click();
  const token = page.getByTestId('token');
  await token.waitFor();
  minted = (await token.innerText()).trim();
  assert.match(minted, /^sbk_[0-9a-f]{16}_/);
  await page.getByRole('button', { name: 'Copy token' }).waitFor();
  assert.is(await page.getByLabel('Name').inputValue(), '', 'the form is cleared after a mint');
  assert.is((await asKey(minted)).status, 200);
  const keyId = minted.split('_')[1]!;
  await page.locator(`tr[data-key="${keyId}"]`).getByText('active', { exact: true }).waitFor();
  // The audit tail shows the mint.
  await page.getByTestId('audit-log').getByText('key_minted').first().waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('audit-log').innerText(), new RegExp(`key_id=${keyId}`));
  await checkAccessibility(page, 'keys with a new token');
  await screenshot(page, 'keys');

  // Shown once: a reload has it nowhere, not in storage either.
  await page.reload();
  await page.locator(`tr[data-key="${keyId}"]`).waitFor();
  assert.is(await page.getByTestId('token').count(), 0);
  assert.not.match(await page.content(), new RegExp(minted));
  assert.not.ok(await page.evaluate((t) => JSON.stringify({ ...sessionStorage, ...localStorage }).includes(t), minted));

  // Revoke asks first, then the API refuses the token.
  const row = page.locator(`tr[data-key="${keyId}"]`);
  // From the keyboard: Enter on Revoke, then on its confirmation.
  await row.getByRole('button', { name: 'Revoke ci deploy' }).focus();
  await page.keyboard.press('Enter');
  await row.getByRole('button', { name: 'Yes, revoke' }).focus();
  await page.keyboard.press('Enter');
  await row.getByText('revoked', { exact: true }).waitFor();
  assert.match(await page.evaluate(() => document.activeElement?.textContent ?? ''), /was revoked/, 'focus moves to the outcome');
  assert.is((await asKey(minted)).status, 401);
  assert.equal(browser.problems, []);
});

test('rotating a key shows the new token once; the old token is refused', async () => {
  const { page } = browser;
  const res = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'X-API-Key': BOOTSTRAP, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'nightly', scopes: ['keys:manage'] }) });
  const first = await json<{ key_id: string; token: string }>(res);
  // Keys minted elsewhere show up on a reload of the list; the audit tail shows them live.
  await page.getByTestId('audit-log').getByText(new RegExp(`key_id=${first.key_id}`)).waitFor({ timeout: 10_000 });
  await page.reload();
  const row = page.locator(`tr[data-key="${first.key_id}"]`);
  await row.getByRole('button', { name: 'Rotate nightly' }).click();
  await row.getByRole('button', { name: 'Yes, rotate' }).click();
  const token = (await page.getByTestId('token').innerText()).trim();
  assert.is.not(token, first.token);
  assert.is((await asKey(first.token)).status, 401);
  assert.is((await asKey(token)).status, 200);
  await page.getByTestId('audit-log').getByText('key_rotated').waitFor({ timeout: 10_000 });
});

test('the effective settings show their sources; the env export masks secrets', async () => {
  const { page } = browser;
  const table = page.getByTestId('settings-table');
  const audit = table.locator('tr[data-setting="AUDIT_LOG_ENABLED"]');
  await audit.getByText('environment').waitFor();
  const apiKeyRow = table.locator('tr[data-setting="API_KEY"]');
  assert.match(await apiKeyRow.innerText(), /\*\*\*/);
  // All keys, defaults too, with the filter.
  await page.getByLabel('Only keys not at their default').uncheck();
  await page.getByLabel('Filter by key').fill('require_api');
  await table.locator('tr[data-setting="REQUIRE_API_KEY"]').getByText('default').waitFor();
  assert.is(await table.locator('tbody tr').count(), 1);

  await page.getByRole('button', { name: 'Export as env snippet' }).click();
  const snippet = await page.getByTestId('env-snippet').innerText();
  assert.match(snippet, /AUDIT_LOG_ENABLED=true/);
  assert.match(snippet, /API_KEY=\*\*\*/);
  assert.not.match(snippet, new RegExp(BOOTSTRAP));
  assert.not.match(await page.content(), new RegExp(BOOTSTRAP));
  await checkAccessibility(page, 'keys and settings');
  assert.equal(browser.problems, []);
});

test.run();
