import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openBrowser, type ConsoleBrowser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

// /docs (Swagger UI) in Chromium under the console's Content-Security-Policy: it renders the
// operations with no refused script, style or connection (the framing rule: surface.test.ts).
let gw: TestGateway;
let browser: ConsoleBrowser;

test.before(async () => {
  gw = await startGateway({}, { watch: false });
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
});

test('/docs renders its operations under the console\'s CSP, with nothing refused', async () => {
  const { page } = browser;
  const res = await page.goto(`${gw.url}/docs`, { waitUntil: 'commit', timeout: 30_000 });
  assert.match(res!.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
  await page.waitForFunction(() => document.body.innerText.includes('Mint an API key'), undefined, { timeout: 30_000 });
  // Known bug (see the closing note of issue 35): on main Swagger UI stops after the first tag's
  // operations, while every branch alone renders all of them. What this test proves is the CSP:
  // the UI's scripts and styles run and render operations, and nothing is refused.
  assert.ok((await page.locator('.opblock').count()) >= 4, 'operations are rendered');
  assert.equal(browser.problems, []);
});

test.run();
