import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { startAlertReceiver, type AlertReceiver } from '../fakes/alert-receiver.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, removeDir, startGateway, until, writeFixturePlugin, type TestGateway } from '../support/gateway.js';
import { createContainer, startPodman, type PodmanEngine } from '../support/podman.js';
import { smallRepo, startRun, waitForRun } from '../host/surfaces/search/search-repo-fixture.js';
import { startLlmGatewayFake, type LlmGatewayFake } from '../fakes/llm-gateway-fake.js';
import { webhookTargetId } from '../../host/surfaces/workbench/alerts/webhook-targets.js';

// The Workbench page in Chromium against a real gateway on the podman engine: the judge backend
// switch, a core service stopped only once its key is typed, a plain service confirmed by name,
// logs, a run's accounting state, and Integrations → Webhooks with a loopback receiver.
const PROJECT = 'sbconsole';
const managed = (service: string) => ({ 'com.docker.compose.project': PROJECT, 'com.docker.compose.service': service, [`io.${PROJECT}.managed`]: 'true' });
const demo = smallRepo();
let engine: PodmanEngine;
let fake: LlmGatewayFake;
let receiver: AlertReceiver;
let gw: TestGateway;
let browser: ConsoleBrowser;
const ids: Record<string, string> = {};

test.before(async () => {
  ensureConsoleBuilt();
  engine = await startPodman();
  ids.postgres = await createContainer(engine.docker, { name: `${PROJECT}-postgres`, labels: managed('postgres') });
  ids.worker = await createContainer(engine.docker, { name: `${PROJECT}-worker`, labels: managed('worker'), cmd: ['sh', '-c', 'echo worker says hello; exec sleep 3600'] });
  receiver = await startAlertReceiver({ tls: false });
  // Index embeddings go through the LLM gateway fake, whose spend ledger prices them: a run's
  // accounting has a real (sub-cent) amount to show.
  fake = await startLlmGatewayFake({ apiKey: 'sk-console-workbench' });
  gw = await startGateway({
    DOCKER_HOST: engine.dockerHost,
    DOCKER__PROJECT: PROJECT,
    DOCKER__SERVICES: 'postgres,worker,api',
    DOCKER__CORE_SERVICES: 'postgres',
    DOCKER__OPTIONAL_SERVICES: 'api',
    DOCKER__TIMEOUT_S: '2',
    REPOS: JSON.stringify({ demo }),
    REPO: 'demo',
    EMBEDDING_MODEL: 'fake-embed',
    EMBEDDING_DIM: '64',
    LLM_GATEWAY_URL: fake.url,
    LLM_GATEWAY_API_KEY: 'sk-console-workbench',
    ALERT_ALLOW_HTTP_LOOPBACK: 'true',
    ALERT_EVAL_INTERVAL_SECONDS: '3600',
    ALERT_RETRY_BASE_MS: '50',
  });
  await startRun(gw.url);
  await waitForRun(gw.url, 'demo');
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
  await receiver?.close();
  await fake?.close();
  await engine?.stop();
  removeDir(demo);
});

const running = async (id: string) => Boolean((await engine.docker.getContainer(id).inspect()).State.Running);

test('containers: a core service stops only once its key is typed; a plain one is confirmed by name; logs', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/workbench`);
  await page.getByRole('heading', { level: 1, name: 'Workbench' }).waitFor();
  const services = page.getByTestId('services');
  await services.getByRole('row', { name: /postgres core running/ }).waitFor();
  await services.getByRole('row', { name: /^api .*optional, not deployed/ }).waitFor();

  // Stop postgres (core): the dialog names it and stays shut until "postgres" is typed.
  await page.getByRole('button', { name: 'Stop postgres', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Stop service postgres?' });
  await dialog.waitFor();
  const go = dialog.getByRole('button', { name: 'Stop postgres', exact: true });
  assert.ok(await go.isDisabled());
  const field = dialog.getByLabel('Type postgres to confirm');
  await field.fill('postgre');
  assert.ok(await go.isDisabled());
  await checkAccessibility(page, 'workbench confirmation');
  // Escape cancels: nothing happened.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.ok(await running(ids.postgres!));

  await page.getByRole('button', { name: 'Stop postgres', exact: true }).click();
  await dialog.getByLabel('Type postgres to confirm').fill('postgres');
  await dialog.getByLabel('Type postgres to confirm').press('Enter');
  await page.getByRole('status').getByText('postgres: stop done, now exited.').waitFor();
  assert.not.ok(await running(ids.postgres!));
  await services.getByRole('row', { name: /postgres core exited/ }).waitFor();
  // Start needs no confirmation.
  await page.getByRole('button', { name: 'Start postgres', exact: true }).click();
  await page.getByRole('status').getByText('postgres: start done, now running.').waitFor();
  assert.ok(await running(ids.postgres!));

  // Restart worker (not core): confirmed by name, no typing.
  await page.getByRole('button', { name: 'Restart worker', exact: true }).click();
  const plain = page.getByRole('dialog', { name: 'Restart service worker?' });
  assert.is(await plain.getByRole('textbox').count(), 0);
  await plain.getByRole('button', { name: 'Restart worker', exact: true }).click();
  await page.getByRole('status').getByText('worker: restart done, now running.').waitFor();

  await page.getByRole('button', { name: 'Logs of worker', exact: true }).click();
  await page.getByTestId('logs').getByText('worker says hello').waitFor();
  assert.equal(browser.problems, []);
});

test("run accounting: the latest run's state in the spec's words and its amount", async () => {
  const { page } = browser;
  const api = await json(await fetch(`${gw.url}/api/index/demo/runs/latest`));
  // Every embedding request was priced by the ledger: complete, and below one cent (not a zero).
  assert.is(api.label, 'Complete');
  assert.is(api.costs.known_display, '< $0.01');
  assert.ok(api.costs.known_usd > 0 && api.costs.known_usd < 0.01);
  const box = page.getByTestId('accounting');
  await box.waitFor();
  assert.ok(['Pending', 'Complete', 'Incomplete', 'Incomplete · Interrupted', 'Check failed', 'Unavailable'].includes(api.label));
  assert.match(await box.locator('p.lead').innerText(), new RegExp(`Costs:\\s+${api.label}\\s+${api.costs.known_display.replace(/[$.()]/g, '\\$&')}`));
  assert.match(await box.locator('p.lead').innerText(), /Costs:\s+Complete\s+< \$0\.01\s+known spend/);
  assert.match(await box.innerText(), new RegExp(api.run_id));
  assert.match(await box.getByRole('row', { name: /index_embeddings/ }).innerText(), /index_embeddings\s+closed/);
  await page.getByRole('button', { name: 'Reconcile now', exact: true }).click();
  await page.getByText('Refreshed every 30 seconds.').waitFor();
  assert.equal(browser.problems, []);
});

test('judge backend: the judges GET /api/judges lists, a third-party one dropped in among them, and a live switch through the config API', async () => {
  const { page } = browser;
  const backend = page.getByLabel('Backend', { exact: true });
  const judges = async () => (await json(await fetch(`${gw.url}/api/judges`))).judges as { id: string; name: string; hosting: string; state: string; selected: boolean }[];
  const shown = async () => (await backend.locator('option').allInnerTexts()).map((t) => t.trim());
  const label = (j: { name: string; hosting: string; state: string }) => `${j.name} · ${j.hosting} · ${j.state}`;
  await page.getByTestId('judge-provider').getByText('hosted', { exact: true }).waitFor();
  // A judge plugin the console has never heard of, dropped in: it starts on the next rescan.
  const folder = path.dirname(writeFixturePlugin(gw.pluginsDir, 'judge-vendor', 'echo-retrieval', { name: 'Vendor judge', provides: [{ kind: 'judge', contract: 'judge@^1' }], egress: ['judge.vendor.example'] }));
  try {
    await until(async () => (await judges()).some((j) => j.id === 'judge-vendor' && j.state === 'active'), 20_000);
    await page.reload();
    await until(async () => (await shown()).includes('Vendor judge · hosted · active'), 10_000);
    // Every option is a judge of the API, in its order, by name, hosting and state; the one in force is chosen.
    const now = await judges();
    assert.equal(await shown(), now.map(label));
    assert.equal(await backend.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)), now.map((j) => j.id));
    assert.is(await backend.inputValue(), now.find((j) => j.selected)!.id);
    assert.ok(await page.getByRole('button', { name: 'Switch', exact: true }).isDisabled(), 'nothing to switch to yet');

    // The hosted judge waits for its key here: it may be chosen, and the console says what follows.
    const hosted = now.find((j) => j.id === 'judge-hosted')!;
    assert.is(hosted.state, 'needs-config');
    await backend.selectOption('judge-vendor');
    assert.is(await page.locator('#judge-state').innerText(), '', 'nothing to say of an active judge');
    await backend.selectOption('judge-hosted');
    await page.getByText('Hosted judge is needs-config: every judgment fails as unavailable until it is active.').waitFor();
    await checkAccessibility(page, 'workbench judge switch');

    await backend.selectOption('judge-selfhosted');
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.getByRole('status').getByText('Judgments now go to Self-hosted judge.').waitFor();
    await page.getByTestId('judge-provider').getByText('judge-selfhosted', { exact: true }).waitFor();
    const config = await json(await fetch(`${gw.url}/api/config`));
    assert.is(config.config['system_one.provider'], 'judge-selfhosted');
    assert.equal((await judges()).filter((j) => j.selected).map((j) => j.id), ['judge-selfhosted']);
    await until(async () => (await backend.inputValue()) === 'judge-selfhosted');
    // Back to the hosted judge for the rest.
    await backend.selectOption('judge-hosted');
    await page.getByRole('button', { name: 'Switch', exact: true }).click();
    await page.getByTestId('judge-provider').getByText('judge-hosted', { exact: true }).waitFor();
    assert.equal(browser.problems, []);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('webhooks: add a target (masked), send a test and see it delivered, refused input kept, remove', async () => {
  const { page } = browser;
  const section = page.getByRole('region', { name: 'Integrations → Webhooks' });
  await section.getByText('No target: alerts go nowhere.').waitFor();
  // A refused URL: the API's detail, and what was typed stays.
  await section.getByLabel('New target URL (https)').fill('http://example.com/hook');
  await section.getByRole('button', { name: 'Add target', exact: true }).click();
  await section.getByRole('alert').getByText(/plain http is refused.*\(422 validation_error\)/).waitFor();
  assert.is(await section.getByLabel('New target URL (https)').inputValue(), 'http://example.com/hook');

  const url = `${receiver.url.replace(/\/$/, '')}/hooks/console-secret-path`;
  const id = webhookTargetId(url);
  await section.getByLabel('New target URL (https)').fill(url);
  await section.getByRole('button', { name: 'Add target', exact: true }).click();
  await section.getByRole('status').getByText(`Added ${id}.`).waitFor();
  const row = section.getByTestId('targets').getByRole('row', { name: new RegExp(id) });
  assert.match(await row.innerText(), /http:\/\/127\.0\.0\.1:\d+\/\*\*\*/);
  assert.not.ok((await page.content()).includes('console-secret-path'), 'the URL path is masked on the page');
  assert.is(await section.getByLabel('New target URL (https)').inputValue(), '');

  await section.getByRole('button', { name: `Send test to ${id}`, exact: true }).click();
  await until(() => receiver.received.length === 1, 10_000);
  assert.is(receiver.received[0]!.body.type, 'test');
  const deliveries = page.getByTestId('deliveries');
  await deliveries.getByRole('row', { name: new RegExp(`test:switchboard \\(firing\\) ${id} delivered`) }).waitFor();
  await checkAccessibility(page, 'workbench');
  await screenshot(page, 'workbench');

  await section.getByRole('button', { name: `Remove ${id}`, exact: true }).click();
  await section.getByRole('status').getByText(`Removed ${id}.`).waitFor();
  await section.getByText('No target: alerts go nowhere.').waitFor();
  assert.equal((await json(await fetch(`${gw.url}/admin/integrations/webhooks`))).targets, []);
  assert.equal(browser.problems, []);
});

test('the accounting view is read again every 30 seconds (the spec\'s dashboard refresh)', async () => {
  const { page } = browser;
  // The page's clock is driven by the test: no waiting, no timing assertion.
  await page.clock.install();
  const reads: string[] = [];
  page.on('request', (r) => {
    if (/\/api\/index\/demo\/runs\/latest/.test(r.url())) reads.push(r.url());
  });
  await page.goto(`${gw.url}/#/workbench`);
  await page.reload();
  await page.getByTestId('accounting').waitFor();
  await until(() => reads.length >= 1);
  const first = reads.length;
  await page.clock.runFor(29_000);
  await page.getByTestId('accounting').waitFor();
  assert.is(reads.length, first, 'not before 30 s');
  await page.clock.runFor(1_000);
  await until(() => reads.length === first + 1);
  await page.clock.runFor(30_000);
  await until(() => reads.length === first + 2);
});

test.run();
