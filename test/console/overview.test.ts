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
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('button', { name: /API key: set/ }).waitFor();
  await page.getByTestId('readiness').waitFor();
  assert.is(await page.evaluate(() => sessionStorage.getItem('switchboard.apiKey')), 'sb_test_not_a_real_key');
  const apiCalls = seen.filter((s) => /\/(health|admin)\//.test(s.url));
  assert.ok(apiCalls.length > 0);
  assert.ok(apiCalls.every((s) => s.key === 'sb_test_not_a_real_key'));
  assert.ok(seen.every((s) => !s.url.includes('sb_test_not_a_real_key')));
  assert.not.ok(gw.logs.some((l) => l.includes('sb_test_not_a_real_key')));
});

test.run();
