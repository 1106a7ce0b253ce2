import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { json, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayConfig } from '../../../../support/gateway-config.js';
import { startSystemOneFake } from '../../../../fakes/system-one-fake.js';
import { startJudgeServerProcess, type JudgeServerProcess } from '../../../../support/judge-server-process.js';
import { judgeConditions } from '../../../../../host/surfaces/workbench/alerts/conditions/judge-conditions.js';

// The judge alerts ask each judge plugin through the judge contract where it answers from: the
// hosted judge (network) alerts on its error rate, the self-hosted one (local) when it stops
// responding while it had traffic. Each alert is labelled by the plugin's id.

type Fake = Awaited<ReturnType<typeof startSystemOneFake>>;
let fake: Fake;
let gw: TestGateway;
let empty: JudgeServerProcess;
const emptyDir = tempDir('switchboard-checkpoints-');

const QUIET = { ALERT_EVAL_INTERVAL_SECONDS: '3600', SYSTEM_ONE__MAX_RETRIES: '0', SYSTEM_ONE__TIMEOUT_S: '2' };
const lab = () => fetch(`${gw.url}/api/lab/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: [{ question: 'q', quote: 'q', expected_answer: 'a' }] }) });
const setProvider = (provider: string | null) => fetch(`${gw.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ system_one: { provider } }) });
const activeJudge = (id: string) => until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === id)?.state === 'active');

test.before(async () => {
  fake = await startSystemOneFake();
  // A judge server that responds but holds no checkpoint: not ready, still responding.
  empty = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: emptyDir, SELFHOSTED_PINNED_CHECKPOINT: 'none' });
  gw = await startGateway({
    ...QUIET,
    SYSTEM_ONE__HOSTED_URL: fake.url,
    HOSTED_JUDGE_API_KEY: 'k',
    ALERT_JUDGE_MIN_CALLS: '2',
    ALERT_JUDGE_ERROR_RATE: '0.5',
    ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES: '0.01',
    SELFHOSTED_HTTP_PORT: String(empty.port),
  });
  await activeJudge('judge-hosted');
});
test.after(async () => {
  await gw?.close();
  await empty?.stop();
  await fake?.close();
  rmSync(emptyDir, { recursive: true, force: true });
});

const conditions = () => judgeConditions({ judge: gw.gateway.surfaces.workbench.judge, config: gatewayConfig(gw.gateway.config) });

test('a judge reached over the network alerts on its error rate, labelled by its plugin id', async () => {
  const source = conditions();
  fake.script({ status: 500 }, { status: 500 });
  await lab();
  await lab();
  const firing = await source.evaluate(Date.now());
  assert.equal(firing.map((f) => [f.type, f.labels]), [['judge_error_rate', { plugin: 'judge-hosted' }]]);
  assert.equal([firing[0]!.context.calls, firing[0]!.context.errors], [2, 2]);
});

test('a judge served on this machine that responds, though not ready, raises no alert; one that stops responding does', async () => {
  const source = conditions();
  assert.is((await setProvider('selfhosted')).status, 200);
  try {
    await activeJudge('judge-selfhosted');
    assert.is((await json(await lab())).error.outcome, 'http_error', 'the empty server answers 503: traffic, and it responds');
    const now = Date.now();
    await source.evaluate(now);
    const later = await source.evaluate(now + 5_000);
    assert.not.ok(later.some((f) => f.type === 'judge_selfhosted_unscrapable'), 'responding: no alert');

    await empty.stop();
    await source.evaluate(now + 6_000);
    const down = await source.evaluate(now + 12_000);
    const alert = down.find((f) => f.type === 'judge_selfhosted_unscrapable');
    assert.ok(alert, JSON.stringify(down));
    assert.equal([alert!.severity, alert!.labels], ['critical', { plugin: 'judge-selfhosted' }]);
    assert.is(alert!.context.unscrapable_seconds, 6);
  } finally {
    await setProvider(null);
  }
});

test('GET /api/ready lists the local judge from its own readiness: the server stopped above is not ready', async () => {
  assert.equal((await json(await fetch(`${gw.url}/api/ready`))).dependencies.map((d: any) => d.name), ['database'], 'the hosted judge is reached over the network: not listed');
  assert.is((await setProvider('judge-selfhosted')).status, 200);
  try {
    const res = await fetch(`${gw.url}/api/ready`);
    assert.is(res.status, 503);
    const body = await json(res);
    assert.equal(body.missing, ['judge-selfhosted']);
    assert.match(body.dependencies[1].detail, /does not answer/);
    assert.match(body.dependencies[1].hint, /start the managed service/);
  } finally {
    await setProvider(null);
  }
});

test.run();
