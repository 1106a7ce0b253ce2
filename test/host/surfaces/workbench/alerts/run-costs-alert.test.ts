import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startGateway, tempDir, until, json, type TestGateway } from '../../../../support/gateway.js';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';

const repoDir = tempDir('switchboard-costs-repo-');
mkdirSync(path.join(repoDir, 'src'), { recursive: true });
writeFileSync(path.join(repoDir, 'src/ledger.ts'), 'export function ledgerTotal(entries: number[]) { return entries.length; }\n');

let gw: TestGateway;
let hooks: AlertReceiver;

test.before(async () => {
  hooks = await startAlertReceiver();
  gw = await startGateway(
    { REPOS: JSON.stringify({ books: repoDir }), REPO: 'books', WEBHOOK_TARGETS: hooks.url, ALERT_WEBHOOK_CA_FILE: hooks.caFile!, ALERT_EVAL_INTERVAL_SECONDS: '3600', ALERT_RUN_COSTS_MINUTES: '0.01' },
    { watch: false },
  );
});
test.after(async () => {
  await gw?.close();
  await hooks?.close();
  rmSync(repoDir, { recursive: true, force: true });
});

test('an index run whose costs stay unsettled past the window fires run_costs_unsettled; a completed reconciliation resolves it', async () => {
  const { runs } = gw.gateway.surfaces.search;
  const run = await runs.start('books', false);
  await runs.settled(run.id);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await new Promise((r) => setTimeout(r, 800));
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await until(() => hooks.received.length === 1);
  const notice = hooks.received[0]!.body;
  assert.is(notice.type, 'run_costs_unsettled');
  assert.is(notice.category, 'accounting');
  assert.equal(notice.labels, { run_id: run.id });
  assert.is(notice.context.costs_state, 'pending');

  const res = await fetch(`${gw.url}/api/index/books/runs/${run.id}/costs/reconcile`, { method: 'POST' });
  assert.is(res.status, 200, await res.clone().text());
  const reconciled = await json(res);
  assert.is(reconciled.costs.state, 'complete', JSON.stringify(reconciled.costs));
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await until(() => hooks.received.length === 2);
  assert.is(hooks.received[1]!.body.status, 'resolved');
  assert.is(hooks.received[1]!.body.id, notice.id);
});

test.run();
