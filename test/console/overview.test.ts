import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../fakes/fax-document-server.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, postFax, startGateway, until, type TestGateway } from '../support/gateway.js';

// The console in Chromium against a real gateway: the shell (navigation, keyboard, CSP, the API
// key kept in session storage) and the Overview page (readiness, health, the 24 h chart, alerts).
let gw: TestGateway;
let browser: ConsoleBrowser;

test.before(async () => {
  ensureConsoleBuilt();
  gw = await startGateway({ FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '100', FAX_DISPATCH_POLL_MS: '50' });
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
});

test('the overview shows readiness, health, the 24 h chart and alerts', async () => {
  // Two jobs, one delivered and one failed, for the chart.
  const pdf = await makePdf(1);
  const ids: string[] = [];
  for (const to of ['+15550100001', '+15550100003']) ids.push((await json(await postFax(gw.url, to, pdf))).id as string);
  await until(async () => {
    const states = await Promise.all(ids.map(async (id) => (await json(await fetch(`${gw.url}/fax/${id}`))).status));
    return states.every((s) => s === 'SUCCESS' || s === 'FAILED');
  }, 15000, 50);

  const { page } = browser;
  const res = await page.goto(`${gw.url}/`);
  assert.is(res?.status(), 200);
  assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const readiness = page.getByTestId('readiness');
  await readiness.waitFor();
  assert.match(await readiness.innerText(), /The gateway is\s+ready/);
  // The chart is drawn (uPlot's canvas) and its numbers are there as text too.
  await page.locator('#activity-h ~ figure canvas').first().waitFor();
  const caption = await page.locator('figure.chart figcaption').innerText();
  assert.match(caption, /1 sent, 1 failed, 0 queued/);
  await page.getByText('No alert is firing.').waitFor();
  await page.getByRole('cell', { name: 'fax-sim', exact: true }).waitFor();
  // Readiness once: its checks in one table, the section below lists the plugins only.
  assert.is(await page.getByRole('cell', { name: 'fax_backend', exact: true }).count(), 1);
  await page.getByRole('heading', { name: 'Plugin health' }).waitFor();
  // A plugin waiting for settings reads as such, neutral, in the words GET /plugins uses.
  const plugins = (await json(await fetch(`${gw.url}/plugins`))).plugins as Array<{ id: string; state: string; last_error: string | null }>;
  const waiting = plugins.find((p) => p.id === 'alert-webhook')!;
  assert.is(waiting.last_error, 'needs settings: url (ALERT_WEBHOOK_URL)', JSON.stringify(waiting));
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'alert-webhook', exact: true }) });
  assert.match(await row.innerText(), /needs settings: url \(ALERT_WEBHOOK_URL\)/);
  assert.not.match(await row.innerText(), /Invalid input|received undefined/);
  // A favicon, served: no 404 in the page's first requests.
  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  assert.ok(icon, 'the page names an icon');
  const served = await fetch(new URL(icon!, gw.url));
  assert.is(served.status, 200);
  assert.match(served.headers.get('content-type') ?? '', /image\/svg\+xml/);
  await checkAccessibility(page, 'overview');
  await screenshot(page, 'overview');
  assert.equal(browser.problems, []);
});

test('the navigation works with the keyboard and marks the current page', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/overview`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  // Tab to the skip link first, then into the navigation.
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  const nav = page.getByRole('navigation', { name: 'Console' });
  for (const name of ['Overview', 'Fax', 'Plugins', 'Keys & settings', 'Code search', 'Workbench']) await nav.getByRole('link', { name, exact: true }).waitFor();
  await nav.getByRole('link', { name: 'Plugins' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Plugins' }).waitFor();
  assert.is(await nav.getByRole('link', { name: 'Plugins' }).getAttribute('aria-current'), 'page');
  // Focus moved to the new page's heading, for screen readers.
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
  for (const name of ['Plugins', 'Keys & settings', 'Code search', 'Workbench']) {
    await nav.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await checkAccessibility(page, name);
  }
  assert.equal(browser.problems, []);
});

test('an unknown page path opens the console; the API key stays out of URLs and goes only in the header', async () => {
  const { page } = browser;
  const res = await page.goto(`${gw.url}/some/old/bookmark`);
  assert.is(res?.status(), 200);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.getByRole('button', { name: /API key: none/ }).click();
  await page.getByLabel('API key for this session').fill('sb_test_not_a_real_key');
  const seen: { url: string; key: string | undefined }[] = [];
  page.on('request', (r) => seen.push({ url: r.url(), key: r.headers()['x-api-key'] }));
  await page.getByRole('button', { name: 'Use this key' }).click();
  // Not a key of this gateway: its 401 reopens the form, saying so.
  await page.getByRole('alert').filter({ hasText: "The gateway refused this session's key (401)." }).waitFor();
  await page.getByTestId('readiness').waitFor();
  assert.is(await page.evaluate(() => sessionStorage.getItem('switchboard.apiKey')), 'sb_test_not_a_real_key');
  const apiCalls = seen.filter((s) => /\/(health|admin)\//.test(s.url));
  assert.ok(apiCalls.length > 0);
  assert.ok(apiCalls.every((s) => s.key === 'sb_test_not_a_real_key'));
  assert.ok(seen.every((s) => !s.url.includes('sb_test_not_a_real_key')));
  assert.not.ok(gw.logs.some((l) => l.includes('sb_test_not_a_real_key')));
});

test('once a key exists, a 401 opens the key form saying where keys come from; its buttons say what they do', async () => {
  const { page } = browser;
  await page.evaluate(() => sessionStorage.clear());
  // Minting the first key (as the README does with the CLI) makes keys required.
  const minted = await json(await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'operator', scopes: ['admin'] }) }));
  assert.match(minted.token, /^sbk_/);
  await page.goto(`${gw.url}/#/plugins`);
  const help = page.getByRole('alert').filter({ hasText: 'The gateway needs an API key (401).' });
  await help.waitFor();
  assert.match(await help.innerText(), /Keys come from switchboard keys mint <name> --scopes admin on the gateway's machine/);
  const use = page.getByRole('button', { name: 'Use this key' });
  assert.ok(await use.isDisabled(), 'nothing to use while the field is empty');
  assert.is(await page.getByRole('button', { name: 'Forget the saved key' }).count(), 0, 'no saved key to forget');
  await page.getByLabel('API key for this session').fill(minted.token);
  await use.click();
  await page.getByRole('button', { name: /API key: set/ }).waitFor();
  await page.getByTestId('plugin-list').waitFor();
  await page.getByRole('button', { name: /API key: set/ }).click();
  await page.getByRole('button', { name: 'Forget the saved key' }).waitFor();
  await page.getByRole('button', { name: 'Close' }).click();
  await checkAccessibility(page, 'plugins with a key');
});

test.run();
