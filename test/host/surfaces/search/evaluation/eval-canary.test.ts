import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';

const repoDir = tempDir('switchboard-canary-repo-');
const files: Record<string, string> = {
  'src/invoice.ts': 'export function renderInvoice(invoiceId: string) { return invoiceId; }\n',
  'src/ledger.ts': 'export function ledgerTotal(entries: number[]) { return entries.length; }\n',
  'src/customer.ts': 'export interface Customer { name: string; email: string }\n',
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(repoDir, rel)), { recursive: true });
  writeFileSync(path.join(repoDir, rel), text);
}
const GOOD = [
  { q: 'render an invoice', expect_paths: ['invoice.ts'] },
  { q: 'ledger total of entries', expect_paths: ['ledger.ts'] },
];
// The same questions, but the answers live where search will not put them first: a regression.
const WORSE = [
  { q: 'render an invoice', expect_paths: ['customer.ts'] },
  { q: 'ledger total of entries', expect_paths: ['customer.ts'] },
];

let gw: TestGateway;
let hooks: AlertReceiver;
const evalRun = (body: unknown) => fetch(`${gw.url}/api/eval/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test.before(async () => {
  hooks = await startAlertReceiver();
  gw = await startGateway(
    { REPOS: JSON.stringify({ books: repoDir }), REPO: 'books', WEBHOOK_TARGETS: hooks.url, ALERT_WEBHOOK_CA_FILE: hooks.caFile!, ALERT_EVAL_INTERVAL_SECONDS: '3600' },
    { watch: false },
  );
  const { runs } = gw.gateway.surfaces.search;
  const run = await runs.start('books', false);
  await runs.settled(run.id);
});
test.after(async () => {
  await gw?.close();
  await hooks?.close();
  rmSync(repoDir, { recursive: true, force: true });
});

test('a named evaluation below its baseline by more than ALERT_EVAL_DROP fires eval_regression; a run back at the baseline resolves it', async () => {
  let res = await evalRun({ golden: GOOD, name: 'nightly', save_as_baseline: true });
  assert.is(res.status, 200, await res.clone().text());
  assert.is((await res.json()).summary.mrr_at_10, 1);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  assert.is(hooks.received.length, 0, 'only a baseline: nothing to compare');

  res = await evalRun({ golden: WORSE, name: 'nightly' });
  assert.is(res.status, 200);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await until(() => hooks.received.length === 1);
  const notice = hooks.received[0]!.body;
  assert.is(notice.type, 'eval_regression');
  assert.is(notice.category, 'evaluation');
  assert.equal(notice.labels, { name: 'nightly' });
  assert.ok(notice.context.deltas.mrr_at_10 < -0.05, JSON.stringify(notice.context));

  res = await evalRun({ golden: GOOD, name: 'nightly' });
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await until(() => hooks.received.length === 2);
  assert.is(hooks.received[1]!.body.status, 'resolved');
  assert.is(hooks.received[1]!.body.id, notice.id);
});

test('a run of another name, or an unnamed run, is never compared; save_as_baseline needs a name', async () => {
  const before = hooks.received.length;
  assert.is((await evalRun({ golden: WORSE })).status, 200);
  assert.is((await evalRun({ golden: WORSE, name: 'other' })).status, 200);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await new Promise((r) => setTimeout(r, 200));
  assert.is(hooks.received.length, before);
  assert.is((await evalRun({ golden: GOOD, save_as_baseline: true })).status, 422);
  assert.is((await evalRun({ golden: GOOD, name: '../x' })).status, 422);
});

test.run();
