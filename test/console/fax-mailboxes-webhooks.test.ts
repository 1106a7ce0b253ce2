import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAlertReceiver, type AlertReceiver } from '../fakes/alert-receiver.js';
import { makePdf } from '../fakes/fax-document-server.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, startGateway, until, type TestGateway } from '../support/gateway.js';

// The Fax page's mailboxes, status webhooks (the secret shown once, each delivery with a
// redeliver button) and a job's cancel and resend, in Chromium against a real gateway with the
// simulated backend and a webhook receiver on loopback.
let gw: TestGateway;
let browser: ConsoleBrowser;
let receiver: AlertReceiver;

test.before(async () => {
  ensureConsoleBuilt();
  receiver = await startAlertReceiver({ tls: false });
  gw = await startGateway({ FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '200', FAX_DISPATCH_POLL_MS: '50', INBOUND_ENABLED: 'true', ALERT_ALLOW_HTTP_LOOPBACK: 'true', WEBHOOK_DELIVERY_POLL_MS: '20' });
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
  await receiver?.close();
});

async function receiveInbound(to: string): Promise<string> {
  const secret = readFileSync(path.join(gw.dataDir, 'fax-sim', 'secret'), 'utf8').trim();
  const notice = JSON.stringify({ from: '+15550109999', to, pdf_base64: (await makePdf(1)).toString('base64') });
  const res = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': createHmac('sha256', secret).update(notice).digest('hex') }, body: notice });
  assert.is(res.status, 200);
  return (await json(res)).id;
}

test('mailboxes: a rule adds a mailbox, a second rule joins it, delete removes it; inbound shows the mailbox', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax/mailboxes`);
  await page.getByRole('heading', { level: 2, name: 'Mailboxes' }).waitFor();
  await page.getByText('No mailbox yet').waitFor();
  await page.getByLabel('Mailbox', { exact: true }).fill('sales');
  await page.getByLabel('Match').selectOption('prefix');
  await page.getByLabel('Called number').fill('+1555777');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.getByText('+1555777… now goes to sales.').waitFor();
  await page.getByLabel('Match').selectOption('exact');
  await page.getByLabel('Called number').fill('+15559990000');
  await page.getByRole('button', { name: 'Add rule' }).click();
  const row = page.getByTestId('mailboxes').locator('tr', { hasText: 'sales' });
  await row.getByText('+1555777…, +15559990000').waitFor();
  const api = await json(await fetch(`${gw.url}/admin/mailboxes/sales`));
  assert.equal(api.numbers, [{ match: 'prefix', number: '+1555777' }, { match: 'exact', number: '+15559990000' }]);
  await checkAccessibility(page, 'fax: mailboxes');
  await screenshot(page, 'fax-mailboxes');

  await receiveInbound('+15557770001');
  await page.getByRole('link', { name: 'Inbound' }).click();
  await page.getByTestId('inbound').locator('tbody tr').first().getByText('sales').waitFor();

  await page.getByRole('link', { name: 'Mailboxes' }).click();
  await page.getByRole('button', { name: 'Delete mailbox sales' }).click();
  await page.getByText('No mailbox yet').waitFor();
  assert.is((await fetch(`${gw.url}/admin/mailboxes/sales`)).status, 404);
  assert.equal(browser.problems, []);
});

test('status webhooks: subscribe (the secret shown once), see each delivery, redeliver one, unsubscribe', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax/webhooks`);
  await page.getByRole('heading', { level: 2, name: 'Status webhooks' }).waitFor();
  await page.getByLabel('Receiver URL (https)').fill(`${receiver.url}?console`);
  await page.getByLabel('inbound.received').check();
  await page.getByRole('button', { name: 'Subscribe' }).click();
  const secret = await page.getByLabel('Signing secret').inputValue();
  assert.match(secret, /^whsec_/);
  await page.getByRole('button', { name: 'Done, hide the secret' }).click();
  assert.is(await page.getByTestId('secret-once').count(), 0);
  const listed = (await json(await fetch(`${gw.url}/webhooks/subscriptions`))).subscriptions;
  assert.is(listed.length, 1);
  assert.not.ok(JSON.stringify(listed).includes(secret), 'the list never shows the secret');

  const inbound = await receiveInbound('+15550100001');
  const toConsole = () => receiver.received.filter((r) => r.path?.endsWith('?console') && r.body.data?.id === inbound);
  await until(() => toConsole().length === 1, 10_000, 20);
  await page.getByRole('button', { name: 'Deliveries' }).click();
  const log = page.getByTestId('deliveries');
  await log.locator('tr', { hasText: 'delivered' }).waitFor({ timeout: 10_000 });
  assert.match(await log.innerText(), /inbound\.received/);
  await checkAccessibility(page, 'fax: webhooks');
  await screenshot(page, 'fax-webhooks');
  await log.getByRole('button', { name: 'Redeliver' }).click();
  await page.getByText('inbound.received queued again (same event id).').waitFor();
  await until(() => toConsole().length === 2, 10_000, 20);
  const [first, again] = toConsole();
  assert.is(again!.headers['x-switchboard-event-id'], first!.headers['x-switchboard-event-id']);

  await page.getByRole('group', { name: /Actions for http/ }).getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No subscription yet.').waitFor();
  assert.equal((await json(await fetch(`${gw.url}/webhooks/subscriptions`))).subscriptions, []);
  assert.equal(browser.problems, []);
});

test('a fax scheduled on the send form waits queued, is canceled from its page, then resent as a linked new job', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax`);
  await page.getByLabel(/Destination number/).fill('+15550100005');
  await page.getByLabel('Document').setInputFiles({ name: 'later.pdf', mimeType: 'application/pdf', buffer: await makePdf(1) });
  const later = new Date(Date.now() + 3_600_000);
  const local = new Date(later.getTime() - later.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await page.getByLabel(/Send at/).fill(local);
  await page.getByRole('button', { name: 'Check document and count pages' }).click();
  await page.getByRole('button', { name: /^Send 1 page/ }).click();
  await page.getByRole('heading', { level: 2, name: /^Job / }).waitFor();
  const id = (await page.getByRole('heading', { level: 2, name: /^Job / }).innerText()).replace(/^Job /, '');
  const scheduled = await json(await fetch(`${gw.url}/fax/${id}`));
  assert.is(scheduled.send_at?.slice(0, 16), later.toISOString().slice(0, 16), JSON.stringify(scheduled));
  await page.getByTestId('job-detail').getByText('queued').waitFor();
  assert.is(await page.getByRole('button', { name: 'Resend' }).count(), 0, 'nothing to resend before it ends');
  await page.getByRole('button', { name: 'Cancel the fax' }).click();
  await page.getByText('Canceled.').waitFor();
  await page.getByTestId('job-detail').getByText('FAILED').waitFor();
  assert.match(await page.getByTestId('job-detail').innerText(), /canceled/);
  assert.is(await page.getByRole('button', { name: 'Cancel the fax' }).count(), 0);

  await page.getByRole('button', { name: 'Resend' }).click();
  await page.waitForURL((url) => url.hash.startsWith('#/fax/jobs/') && !url.hash.endsWith(id));
  const newId = decodeURIComponent(new URL(page.url()).hash.replace('#/fax/jobs/', ''));
  await page.getByRole('heading', { level: 2, name: `Job ${newId}` }).waitFor();
  const resent = await json(await fetch(`${gw.url}/fax/${newId}`));
  assert.is(resent.resend_of, id);
  const done = await until(async () => {
    const job = await json(await fetch(`${gw.url}/fax/${newId}`));
    return ['SUCCESS', 'FAILED'].includes(job.status) && job;
  }, 15_000, 50);
  assert.is(done.status, 'SUCCESS', JSON.stringify(done));
  await page.getByTestId('timeline').getByText('Finished: SUCCESS').waitFor({ timeout: 15_000 });
  assert.equal(browser.problems, []);
});

test.run();
