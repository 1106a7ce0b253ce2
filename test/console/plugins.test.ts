import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { packedPlugin, uploadPackage } from '../support/plugin-package.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, removeDir, startGateway, tempDir, writeFixturePlugin, type TestGateway } from '../support/gateway.js';

// The Plugins page in Chromium against a real gateway: a manifest dropped into the data
// directory appears without a reload; a settings change (test, then save) serves on a new
// generation; secrets are write-only and environment overrides are marked; the registry installs
// and uninstalls; each plugin says where its code runs (fax-sim in a child process here).
let gw: TestGateway;
let browser: ConsoleBrowser;
let manifestsDir: string;

test.before(async () => {
  ensureConsoleBuilt();
  manifestsDir = tempDir('switchboard-console-manifests-');
  gw = await startGateway({ MANIFESTS_DIR: manifestsDir, ECHO_GREETING: 'hello from env', PLUGIN_ISOLATION: 'fax-sim=process' });
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
  removeDir(manifestsDir);
});

test('a manifest dropped into the data directory appears in the list without a reload', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/plugins`);
  await page.getByRole('heading', { level: 1, name: 'Plugins' }).waitFor();
  await page.locator('tr[data-plugin="fax-sim"]').waitFor();
  assert.is(await page.locator('tr[data-plugin="echo"]').count(), 0);
  // A mark on the window: a reload would wipe it.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
  const row = page.locator('tr[data-plugin="echo"]');
  await row.getByText('active', { exact: true }).waitFor({ timeout: 30_000 });
  assert.is(await page.getByTestId('generation-echo').innerText(), '1');
  assert.match(await row.innerText(), /healthy/);
  assert.ok(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), 'the page was not reloaded');
  await checkAccessibility(page, 'plugins');
  await screenshot(page, 'plugins');
  assert.equal(browser.problems, []);
});

test('the list and the detail page say where each plugin runs: a child process by its pid, or in-process', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/plugins`);
  const isolation = (await json<{ isolation: { mode: string; pid: number | null } }>(await fetch(`${gw.url}/plugins/fax-sim`))).isolation;
  assert.is(isolation.mode, 'process');
  assert.ok(isolation.pid && isolation.pid !== process.pid, `fax-sim runs in a process of its own, not the gateway's (pid ${isolation.pid})`);
  process.kill(isolation.pid, 0); // throws when no such process is running
  await page.getByTestId('isolation-fax-sim').getByText(`process ${isolation.pid}`, { exact: true }).waitFor();
  await page.getByTestId('isolation-echo').getByText('in-process', { exact: true }).waitFor();
  await page.locator('tr[data-plugin="fax-sim"]').getByRole('link', { name: 'fax-sim' }).click();
  await page.getByRole('heading', { level: 2, name: 'Plugin fax-sim' }).waitFor();
  await page.getByTestId('isolation').getByText(`process ${isolation.pid}`, { exact: true }).waitFor();
  await page.goto(`${gw.url}/#/plugins`);
  await page.locator('tr[data-plugin="echo"]').getByRole('link', { name: 'echo' }).click();
  await page.getByRole('heading', { level: 2, name: 'Plugin echo' }).waitFor();
  await page.getByTestId('isolation').getByText('in-process', { exact: true }).waitFor();
  await page.goto(`${gw.url}/#/plugins`);
  assert.equal(browser.problems, []);
});

test('a setting is tested, then saved, and the plugin serves on a new generation', async () => {
  const { page } = browser;
  await page.locator('tr[data-plugin="echo"]').getByRole('link', { name: 'echo' }).click();
  await page.getByRole('heading', { level: 2, name: 'Plugin echo' }).waitFor();
  assert.is(await page.getByTestId('generation').innerText(), '1');
  // The form is generated from the schema: the enum is a select, the secret a password field
  // shown as not set, and the field the environment overrides is marked with its variable.
  const greeting = page.locator('[data-field="greeting"]');
  await greeting.getByText('env: ECHO_GREETING').waitFor();
  assert.is(await page.getByLabel('greeting').inputValue(), 'hello from env');
  assert.is(await page.locator('#setting-failStart').evaluate((e) => e.tagName), 'SELECT');
  assert.is(await page.locator('#setting-token').getAttribute('type'), 'password');
  await page.locator('[data-field="token"]').getByText('not set', { exact: true }).waitFor();

  // Test before save: a start failure is reported and nothing is stored.
  await page.locator('#setting-failStart').selectOption('config');
  await page.getByRole('button', { name: 'Test settings' }).click();
  await page.getByTestId('settings-result').getByText(/Test failed/).waitFor();
  assert.match(await page.getByTestId('settings-result').innerText(), /greeting rejected/);
  assert.is(await page.locator('#setting-failStart').inputValue(), 'config', 'the choice survives the failed test');
  await page.locator('#setting-failStart').selectOption('none');
  await page.getByLabel('token').fill('s3cret-token-value');
  await page.getByRole('button', { name: 'Test settings' }).click();
  await page.getByTestId('settings-result').getByText(/Test passed/).waitFor();
  assert.is(await page.getByTestId('generation').innerText(), '1', 'a test stores nothing');

  // Saved from the keyboard: Enter in a field submits the form.
  await page.getByLabel('token').press('Enter');
  await page.getByTestId('settings-result').getByText(/generation 2/).waitFor();
  await page.getByTestId('generation').getByText('2', { exact: true }).waitFor();
  // Write-only: the secret is now "set", the field empty, and the value nowhere on the page.
  await page.locator('[data-field="token"]').getByText('set', { exact: true }).waitFor();
  assert.is(await page.getByLabel('token').inputValue(), '');
  assert.not.match(await page.content(), /s3cret-token-value/);
  const view = await json<{ secrets: Record<string, { set: boolean }> }>(await fetch(`${gw.url}/plugins/echo/config`));
  assert.is(view.secrets.token?.set, true);
  await checkAccessibility(page, 'plugin settings');
  assert.equal(browser.problems, []);
});

test('the registry installs and uninstalls an entry; the API refusal shows its detail', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/plugins`);
  await page.getByRole('heading', { level: 2, name: 'Registry' }).waitFor();
  await page.getByRole('button', { name: 'Install faxpipe-json' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText(/faxpipe-json was installed/).waitFor({ timeout: 15_000 });
  assert.ok(existsSync(path.join(manifestsDir, 'faxpipe-json.json')));
  await page.locator('tr[data-plugin="faxpipe-json"]').waitFor();
  await page.getByRole('button', { name: 'Uninstall faxpipe-json' }).click();
  await page.getByText(/faxpipe-json was uninstalled/).waitFor({ timeout: 15_000 });
  assert.not.ok(existsSync(path.join(manifestsDir, 'faxpipe-json.json')));
  await page.locator('tr[data-plugin="faxpipe-json"]').waitFor({ state: 'detached' });
  await checkAccessibility(page, 'plugins registry');
  assert.equal(browser.problems, []);
});

test('a packaged plugin shows its version, digest, signature and history; a rollback asks first', async () => {
  const { page } = browser;
  const src = tempDir('switchboard-console-packages-');
  try {
    const digests: string[] = [];
    for (const version of ['1.0.0', '2.0.0']) {
      const res = await uploadPackage(gw.url, await packedPlugin(src, 'shipped', version));
      assert.is(res.status, 201, await res.clone().text());
      digests.push((await json<{ versions: Array<{ version: string; digest: string }> }>(await fetch(`${gw.url}/plugins/shipped/versions`))).versions.find((v) => v.version === version)!.digest);
    }
    await page.goto(`${gw.url}/#/plugins`);
    await page.locator('tr[data-plugin="shipped"]').getByRole('link', { name: 'shipped' }).click();
    await page.getByRole('heading', { level: 2, name: 'Plugin shipped' }).waitFor();
    await page.getByTestId('package-version').getByText('2.0.0', { exact: true }).waitFor();
    assert.is(await page.getByTestId('package-digest').innerText(), digests[1]);
    assert.is(await page.getByTestId('package-signature').innerText(), 'unsigned');
    assert.is(await page.getByTestId('package-versions').locator('tbody tr').count(), 2);
    const generation = Number(await page.getByTestId('generation').innerText());
    // Cancelled, nothing changes; confirmed, 1.0.0 serves on a new generation.
    await page.getByRole('button', { name: 'Roll back to 1.0.0' }).click();
    await page.getByRole('dialog').getByText('Roll shipped back to 1.0.0?').waitFor();
    await checkAccessibility(page, 'plugin rollback dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.is((await json<{ current: string }>(await fetch(`${gw.url}/plugins/shipped/versions`))).current, '2.0.0', 'cancel rolls nothing back');
    await page.getByRole('button', { name: 'Roll back to 1.0.0' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Roll back to 1.0.0' }).click();
    await page.getByText(/Rolled back from 2\.0\.0 to 1\.0\.0/).waitFor({ timeout: 20_000 });
    await page.getByTestId('package-version').getByText('1.0.0', { exact: true }).waitFor();
    assert.is(await page.getByTestId('package-digest').innerText(), digests[0]);
    // A new generation serves, and the page shows the one /plugins reports.
    const served = (await json<{ generation: number }>(await fetch(`${gw.url}/plugins/shipped`))).generation;
    assert.ok(served > generation, `generation ${served} after ${generation}`);
    await page.getByTestId('generation').getByText(String(served), { exact: true }).waitFor();
    await checkAccessibility(page, 'packaged plugin');
    assert.equal(browser.problems, []);
  } finally {
    removeDir(src);
  }
});

test.run();
