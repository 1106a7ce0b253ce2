import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openBrowser, type ConsoleBrowser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

// /docs (Swagger UI) in Chromium under the console's Content-Security-Policy: it renders every
// operation of /openapi.json with no refused script, style or connection (the framing rule:
// surface.test.ts).
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

test('/docs renders every operation under the console\'s CSP, with nothing refused', async () => {
  const { page } = browser;
  const res = await page.goto(`${gw.url}/docs`, { waitUntil: 'commit', timeout: 30_000 });
  assert.match(res!.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
  await page.waitForFunction(() => document.body.innerText.includes('Mint an API key'), undefined, { timeout: 30_000 });
  // Swagger UI renders a long list of operations virtualized (only those in view are in the
  // page), so the test scrolls to the end and collects every operation that was rendered.
  const spec = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const expected = Object.values(spec.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId!)).sort();
  const seen = new Set<string>();
  for (let step = 0, ended = 0; step < 2000 && ended < 2; step++) {
    // Collect what is rendered now, scroll on, and let the virtualizer render the next frame.
    const { ids, atEnd } = await page.evaluate(async () => {
      const ids = [...document.querySelectorAll('.opblock')].map((el) => el.id);
      const atEnd = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
      window.scrollBy(0, Math.floor(window.innerHeight * 0.8));
      for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
      return { ids, atEnd };
    });
    // An operation's element id is operations-<tag>-<operationId>.
    for (const id of ids) for (const operationId of expected) if (id.endsWith(`-${operationId}`)) seen.add(operationId);
    ended = atEnd ? ended + 1 : 0;
  }
  assert.equal(expected.filter((id) => !seen.has(id)), [], 'every operation of /openapi.json is rendered');
  assert.equal(browser.problems, []);
});

test.run();
