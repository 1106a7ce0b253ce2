import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SCOPE_NAMES } from '../../host/platform/auth/scopes.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { ROOT, startGateway, type TestGateway } from '../support/gateway.js';

// The Keys & settings page in Chromium against a real gateway: mint (the token shown once, copied
// with the button, then used for the session), rotate and revoke with a confirmation, the
// effective settings with their sources and the env export, the audit log's live tail.
const SECRET = 'sk-console-export-secret-4c7d9e';
let gw: TestGateway;
let browser: ConsoleBrowser;

test.before(async () => {
  ensureConsoleBuilt();
  gw = await startGateway({ AUDIT_LOG_ENABLED: 'true', FAX_BACKEND: 'fax-sim', OPENAI_API_KEY: SECRET });
  browser = await openBrowser();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
});

test("the console's scope list is the API's", () => {
  const web = readFileSync(path.join(ROOT, 'web/src/scopes.ts'), 'utf8');
  const listed = [...web.matchAll(/name: '([^']+)'/g)].map((m) => m[1]).sort();
  assert.equal(listed, [...SCOPE_NAMES].sort());
});

test('mint a key: the token is shown once, copied, and used for the session', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/keys`);
  await page.getByRole('heading', { level: 1, name: 'Keys & settings' }).waitFor();
  await page.getByText('No key yet').waitFor();
  // A mint the API refuses (the first key must include admin): its detail shows, the form keeps the name.
  await page.getByLabel('Name', { exact: true }).fill('operator');
  await page.getByRole('checkbox', { name: /fax:send/ }).check();
  await page.getByRole('button', { name: 'Mint key' }).click();
  await page.getByRole('alert').getByText(/409/).waitFor();
  assert.is(await page.getByLabel('Name', { exact: true }).inputValue(), 'operator');
  await page.getByRole('checkbox', { name: /^admin/ }).check();
  await page.getByRole('button', { name: 'Mint key' }).click();
  const token = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
  assert.match(token, /^sbk_[0-9a-f]{16}_/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  assert.is(await page.evaluate(() => navigator.clipboard.readText()), token);
  // Keys are required now: the console goes on with the new one, kept for this tab only.
  await page.getByRole('button', { name: 'Use this key for this session' }).click();
  await page.getByRole('button', { name: /API key: set/ }).waitFor();
  const row = page.getByTestId('keys').locator('tr', { hasText: 'operator' });
  await row.getByText('active').waitFor();
  assert.not.ok(page.url().includes(token));
  assert.not.ok(gw.logs.some((l) => l.includes(token)));
  assert.equal(browser.problems, []);
});

test('the audit tail shows a new key live; rotate and revoke ask first and take effect', async () => {
  const { page } = browser;
  await page.getByRole('button', { name: 'Start live tail' }).click();
  await page.getByTestId('tail-state').getByText('Live').waitFor();
  await page.getByLabel('Name', { exact: true }).fill('fax robot');
  await page.getByRole('checkbox', { name: /fax:send/ }).check();
  await page.getByRole('button', { name: 'Mint key' }).click();
  const first = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
  await page.getByRole('button', { name: 'Done, hide the token' }).click();
  const audit = page.getByTestId('audit');
  const keyId = first.split('_')[1]!;
  // Arrived through the tail: the list itself was read before this key existed.
  await audit.locator('tr', { hasText: 'key_minted' }).filter({ hasText: keyId }).waitFor();
  const row = page.getByTestId('keys').locator('tr', { hasText: 'fax robot' });

  await row.getByRole('button', { name: 'Rotate fax robot' }).click();
  await row.getByText('Rotate “fax robot”?').waitFor();
  await row.getByRole('button', { name: 'Yes, rotate' }).click();
  const second = await page.getByRole('textbox', { name: 'Token', exact: true }).inputValue();
  assert.is.not(second, first);
  const probe = (t: string) => fetch(`${gw.url}/fax/00000000-0000-0000-0000-000000000000`, { headers: { 'x-api-key': t } }).then((r) => r.status);
  assert.is(await probe(first), 401);
  await page.getByRole('button', { name: 'Done, hide the token' }).click();
  await audit.locator('tr', { hasText: 'key_rotated' }).filter({ hasText: keyId }).waitFor();

  await row.getByRole('button', { name: 'Revoke fax robot' }).click();
  await row.getByRole('button', { name: 'Cancel' }).click();
  assert.is(await row.getByText('active').count(), 1);
  await row.getByRole('button', { name: 'Revoke fax robot' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await row.getByText('revoked').waitFor();
  assert.is(await probe(second), 401);
  await audit.locator('tr', { hasText: 'key_revoked' }).filter({ hasText: keyId }).waitFor();
  await checkAccessibility(page, 'keys');
  assert.equal(browser.problems, []);
});

test('effective settings show their sources; the env export masks secrets', async () => {
  const { page } = browser;
  await page.getByLabel('Filter by name').fill('audit_log');
  const settings = page.getByTestId('settings');
  const enabled = settings.locator('tr', { hasText: 'AUDIT_LOG_ENABLED' });
  await enabled.waitFor();
  assert.match(await enabled.innerText(), /true\s+env/);
  await page.getByLabel('Filter by name').fill('');
  await page.getByRole('button', { name: 'Export as env snippet' }).click();
  const snippet = await page.getByLabel(/Env snippet/).inputValue();
  assert.match(snippet, /^AUDIT_LOG_ENABLED=true$/m);
  assert.match(snippet, /^FAX_BACKEND=fax-sim$/m);
  assert.match(snippet, /^OPENAI_API_KEY=\*\*\*$/m, 'a secret set in the environment is exported as its mask');
  assert.not.ok(snippet.includes(SECRET), 'the secret itself is not in the snippet');
  assert.not.ok((await page.content()).includes(SECRET), 'nor anywhere on the page');
  await checkAccessibility(page, 'keys: settings');
  await page.getByRole('button', { name: 'Stop live tail' }).click();
  await screenshot(page, 'keys');
  assert.equal(browser.problems, []);
});

test.run();
