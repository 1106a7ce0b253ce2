import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startLlmGatewayFake, type LlmGatewayFake } from '../fakes/llm-gateway-fake.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, removeDir, startGateway, until, type TestGateway } from '../support/gateway.js';
import { smallRepo, writeRepoFile } from '../host/surfaces/search/search-repo-fixture.js';

// The Code search page in Chromium against a real gateway indexing a small temp repository:
// an index run started from the page with its live status lines, a search with a stale mark,
// a question answered as a stream with citations linked to the snippets, keywords and traces.
const KEY = 'sk-console-search-gateway';
const demo = smallRepo();
const other = smallRepo();
let fake: LlmGatewayFake;
let gw: TestGateway;
let browser: ConsoleBrowser;

test.before(async () => {
  ensureConsoleBuilt();
  fake = await startLlmGatewayFake({ apiKey: KEY });
  gw = await startGateway({
    REPOS: JSON.stringify({ demo, other }),
    REPO: 'demo',
    EMBEDDING_MODEL: 'fake-embed',
    EMBEDDING_DIM: '64',
    GEN_MODEL: 'fake-gen',
    KEYWORDS_MIN_FREQ: '1',
    LLM_GATEWAY_URL: fake.url,
    LLM_GATEWAY_API_KEY: KEY,
  });
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
  await fake?.close();
  removeDir(demo);
  removeDir(other);
});

test('index from the page: the run shows its status lines live until it finishes', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/search`);
  await page.getByRole('heading', { level: 1, name: 'Code search' }).waitFor();
  const picker = page.getByLabel('Repository');
  await page.waitForFunction(() => (document.getElementById('search-repo') as HTMLSelectElement | null)?.options.length === 2);
  assert.is(await picker.inputValue(), 'demo', 'REPO is picked by default');
  assert.equal(await picker.locator('option').allInnerTexts(), ['demo', 'other']);
  await page.getByTestId('index-state').getByText('never indexed').waitFor();
  await page.getByRole('button', { name: 'Start indexing' }).click();
  // Polled from GET /api/index/status until the run is over.
  await page.getByTestId('index-state').getByText('finished', { exact: true }).waitFor({ timeout: 60_000 });
  const lines = await page.getByRole('list', { name: 'Index status lines' }).locator('li').allInnerTexts();
  const api = await json(await fetch(`${gw.url}/api/index/status?repo=demo`));
  assert.equal(lines, api.status);
  assert.ok(lines.length >= 2, lines.join('\n'));
  // Starting again while nothing runs is fine; an unknown repository shows the API's detail.
  assert.equal(browser.problems, []);
});

test('search: path, lines, snippet, score, and a stale mark once the file changed', async () => {
  const { page } = browser;
  writeRepoFile(demo, 'src/phone.py', 'def mask_phone_number(number):\n    """Masks every digit but the last four (changed)."""\n    return "*" * (len(number) - 4) + number[-4:]\n');
  await page.getByLabel('Query').fill('mask_phone_number');
  await page.getByLabel('Query').press('Enter');
  const results = page.getByTestId('search-results');
  await results.waitFor();
  const first = results.locator('ol.results > li').first();
  assert.match(await first.innerText(), /src\/phone\.py\s+lines 1–3\s+score \d+\.\d{3}\s+stale/);
  assert.match(await first.locator('pre').innerText(), /def mask_phone_number/);
  // A refused request shows the API's detail and keeps what was typed.
  await page.getByLabel('Results').fill('1000');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('alert').getByText(/top_k must be an integer from 1 to 100 \(422 /).waitFor();
  assert.is(await page.getByLabel('Query').inputValue(), 'mask_phone_number');
  await page.getByLabel('Results').fill('');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('alert').waitFor({ state: 'detached' });
});

test('ask: the answer streams in, then its citations link to the retrieved snippets', async () => {
  const { page } = browser;
  // The model's stream is held after its first words until the test lets it finish.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  fake.route('POST', '/v1/chat/completions', async (req, res) => {
    const chunk = (delta: Record<string, unknown>, finish: string | null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: req.body?.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'Requests arriving during a reload ' }, null));
    await gate;
    res.write(chunk({ content: 'are coalesced into one [1].' }, null));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
  await page.getByLabel('Question', { exact: true }).fill('where is the reload queue coalesced');
  await page.getByRole('button', { name: 'Ask' }).click();
  const answer = page.getByTestId('answer');
  await answer.getByText('Requests arriving during a reload').waitFor();
  assert.is(await answer.getAttribute('aria-busy'), 'true', 'still streaming');
  assert.is((await answer.innerText()).trim(), 'Requests arriving during a reload');
  await page.getByRole('button', { name: 'Answering…' }).waitFor();
  release();
  await answer.getByText('Requests arriving during a reload are coalesced into one [1].').waitFor();
  const citations = page.getByTestId('citations');
  const link = citations.getByRole('link', { name: /core\/kernel\/reload-queue\.ts lines \d+–\d+/ });
  await link.waitFor();
  assert.is(await answer.getAttribute('aria-busy'), 'false');
  // The trace is named where it is: under DATA_DIR, not the checkout.
  await page.getByText(/ · trace DATA_DIR\/out\/[^/]+\/traces\/\d{8}T\d{6}Z_[0-9a-f]{8}\.json/).waitFor();
  const target = (await link.getAttribute('href'))!;
  assert.match(target, /^#source-\d+$/);
  // Following the citation (keyboard) moves focus to its snippet.
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.activeElement?.id === id, target.slice(1));
  assert.match(await page.locator(target).innerText(), /core\/kernel\/reload-queue\.ts[\s\S]*class ReloadQueue/);
  await checkAccessibility(page, 'code search');
  assert.equal(browser.problems, []);
});

test('keywords and traces of the repository; the answer left a trace', async () => {
  const { page } = browser;
  const keywords = page.getByRole('list', { name: 'Discriminative keywords' });
  await keywords.waitFor();
  const api = await json(await fetch(`${gw.url}/api/keywords?repo=demo`));
  assert.ok(api.keywords.length > 0);
  assert.is(await keywords.locator('li').first().innerText(), api.keywords[0].term);
  await page.getByRole('button', { name: 'Rebuild keywords' }).click();
  await until(async () => (await json(await fetch(`${gw.url}/api/keywords?repo=demo`))).generated_at > api.generated_at);
  const traces = page.locator('#traces-h ~ ul.traces');
  await page.getByRole('button', { name: 'Refresh' }).click();
  await traces.locator('li').first().waitFor();
  const button = traces.getByRole('button').first();
  await button.click();
  assert.is(await button.getAttribute('aria-expanded'), 'true');
  const doc = page.getByLabel(/^Trace /);
  await doc.waitFor();
  assert.match(await doc.innerText(), /"question": "where is the reload queue coalesced"/);
  await screenshot(page, 'search');
  await checkAccessibility(page, 'code search with a trace open');
  assert.equal(browser.problems, []);
});

test('navigation: an exact result opens its file at the line; an identifier goes to its definition in another file', async () => {
  const { page } = browser;
  writeRepoFile(demo, 'src/use-header.ts', "import { parseHttpHeader } from './http/header-parser.js';\n\nexport const host = parseHttpHeader('Host: a')[1];\n");
  assert.is((await fetch(`${gw.url}/api/index/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ repo: 'demo' }) })).status, 202);
  await until(async () => ((await json(await fetch(`${gw.url}/api/grep?pattern=parseHttpHeader(%27Host&repo=demo`))).files?.length ? true : undefined), 60_000, 100);
  await page.getByLabel('Query').fill('"parseHttpHeader(\'Host" repo:demo');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByTestId('search-results');
  await results.getByText('1 result for').waitFor();
  await results.getByRole('button', { name: 'demo:src/use-header.ts' }).click();
  const view = page.getByTestId('file-view');
  await view.getByText('src/use-header.ts at line 3').waitFor();
  assert.match(await view.locator('.hit').innerText(), /export const host = parseHttpHeader/);
  await view.locator('.hit').getByRole('button', { name: 'parseHttpHeader' }).click();
  await view.getByText('src/http/header-parser.ts at line 1').waitFor();
  // The heading can change a render before the lines: wait for the definition's line to be the hit.
  await view.locator('.hit', { hasText: /export function parseHttpHeader\(line: string\)/ }).waitFor();
  assert.match(await view.locator('.hit').innerText(), /export function parseHttpHeader\(line: string\)/);
  await checkAccessibility(page, 'code search with a file open');
  assert.equal(browser.problems, []);
});

test.run();
