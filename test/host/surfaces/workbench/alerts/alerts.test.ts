import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startGateway, json, until, tempDir, removeDir, writeFixturePlugin, freePort, type TestGateway } from '../../../../support/gateway.js';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';
import { webhookTargetId } from '../../../../../host/surfaces/workbench/alerts/webhook-targets.js';
import { startSystemOneFake } from '../../../../fakes/system-one-fake.js';
import { alertOutboxDrained } from '../../../../support/alert-outbox.js';
import { gatewayDb } from '../../../../support/database.js';

const QUIET = { ALERT_EVAL_INTERVAL_SECONDS: '3600', ALERT_RETRY_BASE_MS: '50', ALERT_WEBHOOK_TIMEOUT: '0.5' };

let receiver: AlertReceiver;
let gw: TestGateway;

const admin = (g: TestGateway, method: string, p: string, body?: unknown) =>
  fetch(`${g.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const deliveries = async (g: TestGateway) => (await json(await fetch(`${g.url}/admin/alerts/deliveries`))).deliveries as any[];

async function keyfaxActive(g: TestGateway): Promise<void> {
  copyFileSync(path.join(ROOT, 'registry/manifests/keyfax.json'), path.join(g.pluginsDir, 'keyfax.json'));
  await until(async () => (await json(await fetch(`${g.url}/plugins`))).plugins.some((p: any) => p.id === 'keyfax'));
  const res = await admin(g, 'PUT', '/plugins/keyfax/config', { settings: { account_sid: 'AC1', api_key: 'k', from: '+15550001111' } });
  assert.is(res.status, 200);
  await until(async () => (await json(await fetch(`${g.url}/plugins`))).plugins.find((p: any) => p.id === 'keyfax')?.state === 'active');
}
const setKeyfaxEnabled = async (g: TestGateway, enabled: boolean) => {
  assert.is((await admin(g, 'PUT', '/plugins/keyfax/config', { enabled })).status, 200);
  await until(async () => ((await json(await fetch(`${g.url}/plugins`))).plugins.find((p: any) => p.id === 'keyfax')?.state === 'active') === enabled);
};

test.before(async () => {
  receiver = await startAlertReceiver();
  gw = await startGateway({ ...QUIET, WEBHOOK_TARGETS: receiver.url, ALERT_WEBHOOK_CA_FILE: receiver.caFile!, AUDIT_LOG_ENABLED: 'true' });
});
test.after(async () => {
  await gw?.close();
  await receiver?.close();
});

test('a test alert reaches an HTTPS receiver trusted through ALERT_WEBHOOK_CA_FILE, with an idempotency header', async () => {
  const targets = await json(await fetch(`${gw.url}/admin/integrations/webhooks`));
  const id = webhookTargetId(receiver.url);
  assert.equal(targets.targets.map((t: any) => t.id), [id]);
  assert.not.ok(JSON.stringify(targets).includes('/hooks/alerts'), 'the URL path is masked');
  const res = await admin(gw, 'POST', '/admin/alerts/test', { target: id });
  assert.is(res.status, 202);
  const { event_id } = await json(res);
  await until(() => receiver.received.length === 1);
  const got = receiver.received[0]!;
  assert.is(got.headers['content-type'], 'application/json');
  assert.is(got.headers['idempotency-key'], event_id);
  assert.is(got.body.type, 'test');
  assert.is(got.body.status, 'firing');
  for (const field of ['id', 'event_id', 'category', 'severity', 'title', 'starts_at', 'sent_at', 'context']) assert.ok(field in got.body, field);
  assert.is(got.headers['x-switchboard-alert-id'], got.body.id);
  assert.is(got.headers['x-switchboard-event-id'], event_id);
  const row = (await gw.gateway.surfaces.workbench.alerts.outbox.recent(10)).find((r) => r.target_id === id);
  assert.is(JSON.stringify(got.body), row?.notice, 'the receiver gets the notice exactly as the outbox stores it');
  await until(async () => (await deliveries(gw))[0]?.state === 'delivered');
  assert.is((await admin(gw, 'POST', '/admin/alerts/test', { target: 'plugin:nope' })).status, 404);
});

test('a provider leaving active fires once, is not repeated within the interval, and resolves once', async () => {
  receiver.received.length = 0;
  await keyfaxActive(gw);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  assert.is(receiver.received.length, 0, 'active: nothing fires');
  await setKeyfaxEnabled(gw, false);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await until(() => receiver.received.length >= 1);
  const active = await json(await fetch(`${gw.url}/admin/alerts`));
  assert.equal(active.alerts.map((a: any) => [a.type, a.labels.plugin]), [['fax_provider_inactive', 'keyfax']]);
  await setKeyfaxEnabled(gw, true);
  await gw.gateway.surfaces.workbench.alerts.engine.tick();
  await until(() => receiver.received.length >= 2);
  await alertOutboxDrained(gatewayDb(gw.gateway));
  const notices = receiver.received.map((r) => r.body);
  assert.equal(notices.map((n) => [n.type, n.status, n.severity]), [['fax_provider_inactive', 'firing', 'warning'], ['fax_provider_inactive', 'resolved', 'warning']]);
  assert.is(notices[0].id, notices[1].id, 'one stable id per condition instance');
  assert.is.not(notices[0].event_id, notices[1].event_id);
  assert.ok(notices[1].ends_at);
  assert.equal((await json(await fetch(`${gw.url}/admin/alerts`))).alerts, []);
});

test('a firing alert repeats on its interval; with ALERT_INCLUDE_RESOLVED=0 no resolved notice is sent', async () => {
  receiver.received.length = 0;
  const res = await admin(gw, 'POST', '/api/config', { ALERT_REPEAT_MINUTES: 0.01, ALERT_INCLUDE_RESOLVED: false });
  assert.is(res.status, 200);
  try {
    await setKeyfaxEnabled(gw, false);
    // The repeat is due 0.6 s after firing: evaluate until it is written.
    await until(async () => {
      await gw.gateway.surfaces.workbench.alerts.engine.tick();
      return receiver.received.length >= 2;
    }, 10_000, 100);
    const [first, repeat] = receiver.received.map((r) => r.body);
    assert.is(first.status, 'firing');
    assert.is(repeat.status, 'firing');
    assert.is(first.id, repeat.id);
    assert.is.not(first.event_id, repeat.event_id);
    await setKeyfaxEnabled(gw, true);
    const before = receiver.received.length;
    await gw.gateway.surfaces.workbench.alerts.engine.tick();
    await alertOutboxDrained(gatewayDb(gw.gateway));
    assert.is(receiver.received.length, before, 'no resolved notice');
  } finally {
    await admin(gw, 'POST', '/api/config', { ALERT_REPEAT_MINUTES: null, ALERT_INCLUDE_RESOLVED: null });
  }
});

test('the severity filter: a severity not selected is not delivered and is counted', async () => {
  receiver.received.length = 0;
  await admin(gw, 'POST', '/api/config', { ALERT_NOTIFY_SEVERITIES: 'critical' });
  try {
    await setKeyfaxEnabled(gw, false);
    await gw.gateway.surfaces.workbench.alerts.engine.tick();
    await alertOutboxDrained(gatewayDb(gw.gateway));
    assert.is(receiver.received.length, 0);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(metrics, /switchboard_alerts_filtered_total\{severity="warning",reason="not_selected"\} [1-9]/);
  } finally {
    await setKeyfaxEnabled(gw, true);
    await gw.gateway.surfaces.workbench.alerts.engine.tick();
    await admin(gw, 'POST', '/api/config', { ALERT_NOTIFY_SEVERITIES: null });
  }
});

test('5xx, a hang and a crash mid-delivery are retried; a 4xx fails at once', async () => {
  receiver.received.length = 0;
  const id = webhookTargetId(receiver.url);
  await admin(gw, 'POST', '/api/config', { ALERT_DELIVERY_MAX_ATTEMPTS: 20 });
  receiver.next(503, 'hang', 'crash');
  const { event_id } = await json(await admin(gw, 'POST', '/admin/alerts/test', { target: id }));
  await until(async () => (await deliveries(gw)).find((d) => d.event_id === event_id)?.state === 'delivered', 30_000);
  const row = (await deliveries(gw)).find((d) => d.event_id === event_id);
  assert.ok(row.attempts >= 4, `three transient failures, then delivered (attempts ${row.attempts})`);
  const answered = receiver.received.map((r) => r.answered);
  assert.equal(answered.slice(0, 3), [503, 'hang', 'crash']);
  assert.is(answered[answered.length - 1], 200);
  assert.ok(receiver.received.every((r) => r.headers['idempotency-key'] === event_id), 'every attempt carries the same idempotency key');

  receiver.next(410);
  const second = await json(await admin(gw, 'POST', '/admin/alerts/test', { target: id }));
  await until(async () => (await deliveries(gw)).find((d) => d.event_id === second.event_id)?.state === 'failed');
  const failed = (await deliveries(gw)).find((d) => d.event_id === second.event_id);
  assert.is(failed.attempts, 1);
  assert.is(failed.last_status, 410);
});

test('a test alert with a severity passes the filter like any alert; a drop is listed with its reason', async () => {
  receiver.received.length = 0;
  const id = webhookTargetId(receiver.url);
  await admin(gw, 'POST', '/api/config', { ALERT_NOTIFY_SEVERITIES: 'critical' });
  try {
    const res = await admin(gw, 'POST', '/admin/alerts/test', { target: id, severity: 'warning' });
    assert.is(res.status, 202);
    const dropped = await json(res);
    assert.is(dropped.filtered, true);
    assert.is(dropped.severity, 'warning');
    const row = (await deliveries(gw)).find((d) => d.event_id === dropped.event_id);
    assert.is(row.state, 'filtered');
    assert.is(row.attempts, 0);
    assert.match(row.last_error, /severity "warning" is not selected by ALERT_NOTIFY_SEVERITIES \(critical\)/);
    const kept = await json(await admin(gw, 'POST', '/admin/alerts/test', { target: id, severity: 'critical' }));
    assert.is(kept.filtered, false);
    await until(async () => (await deliveries(gw)).find((d) => d.event_id === kept.event_id)?.state === 'delivered');
    assert.equal(receiver.received.map((r) => r.body.event_id), [kept.event_id], 'only the selected severity reached the receiver');
    assert.is(receiver.received[0]!.body.severity, 'critical');
    assert.is((await admin(gw, 'POST', '/admin/alerts/test', { target: id, severity: 'urgent' })).status, 422);
  } finally {
    await admin(gw, 'POST', '/api/config', { ALERT_NOTIFY_SEVERITIES: null });
  }
});

test('a receiver that times out is a failed attempt whose reason names the timeout', async () => {
  const id = webhookTargetId(receiver.url);
  await admin(gw, 'POST', '/api/config', { ALERT_DELIVERY_MAX_ATTEMPTS: 1 });
  try {
    receiver.next('hang');
    const { event_id } = await json(await admin(gw, 'POST', '/admin/alerts/test', { target: id }));
    const row = await until(async () => {
      const d = (await deliveries(gw)).find((x) => x.event_id === event_id);
      return d?.state === 'failed' ? d : undefined;
    }, 15_000);
    assert.is(row.attempts, 1);
    assert.is(row.last_status, null);
    assert.is(row.last_error, 'no answer within 0.5 s (ALERT_WEBHOOK_TIMEOUT)');
  } finally {
    await admin(gw, 'POST', '/api/config', { ALERT_DELIVERY_MAX_ATTEMPTS: null });
  }
});

test('webhook targets: https only, plain http refused without the development flag, URLs masked everywhere', async () => {
  let res = await admin(gw, 'PUT', '/admin/integrations/webhooks', { targets: ['http://example.com/hook'] });
  assert.is(res.status, 422);
  res = await admin(gw, 'PUT', '/admin/integrations/webhooks', { targets: ['http://127.0.0.1:9/hook'] });
  assert.is(res.status, 422);
  assert.match((await json(res)).detail, /ALERT_ALLOW_HTTP_LOOPBACK/);
  res = await admin(gw, 'PUT', '/admin/integrations/webhooks', { targets: ['https://hooks.example.net/secret-path-123', receiver.url] });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.env_overridden, true, 'the environment still wins');
  for (const p of ['/api/config', '/admin/settings', '/admin/integrations/webhooks']) {
    const text = await (await fetch(`${gw.url}${p}`)).text();
    assert.not.ok(text.includes('secret-path-123') || text.includes('/hooks/alerts'), p);
  }
});

test('every write path refuses a plain http target with 422 naming the field; the loopback switch is environment-only', async () => {
  const refused = async (res: Response, field: string) => {
    assert.is(res.status, 422);
    const body = await json(res);
    assert.match(body.detail, new RegExp(`${field}: refused: plugin:alert-webhook-[0-9a-f]{12}: plain http is refused`));
    assert.not.match(JSON.stringify(body), /example\.com/, 'the URL is a secret: named by its id only');
  };
  await refused(await admin(gw, 'POST', '/api/config', { WEBHOOK_TARGETS: 'http://example.com/hook' }), 'WEBHOOK_TARGETS');
  await refused(await admin(gw, 'PUT', '/admin/settings', { settings: { WEBHOOK_TARGETS: 'http://example.com/hook' } }), 'WEBHOOK_TARGETS');
  await refused(await admin(gw, 'PUT', '/admin/integrations/webhooks', { targets: ['http://example.com/hook'] }), 'targets');
  const loopback = await admin(gw, 'POST', '/api/config', { WEBHOOK_TARGETS: 'http://127.0.0.1:9/hook' });
  assert.is(loopback.status, 422);
  assert.match((await json(loopback)).detail, /WEBHOOK_TARGETS: .*ALERT_ALLOW_HTTP_LOOPBACK/);
  const flag = await admin(gw, 'POST', '/api/config', { ALERT_ALLOW_HTTP_LOOPBACK: true });
  assert.is(flag.status, 422);
  assert.match((await json(flag)).detail, /ALERT_ALLOW_HTTP_LOOPBACK: can only be set in the environment/);
  assert.equal((await json(await fetch(`${gw.url}/admin/integrations/webhooks`))).targets.map((t: any) => t.id), [webhookTargetId(receiver.url)], 'nothing was stored');
});

test('with ALERT_ALLOW_HTTP_LOOPBACK in the environment a loopback http target is accepted on every write path', async () => {
  const g = await startGateway({ ...QUIET, ALERT_ALLOW_HTTP_LOOPBACK: 'true' });
  try {
    assert.is((await admin(g, 'POST', '/api/config', { WEBHOOK_TARGETS: 'http://127.0.0.1:9/a' })).status, 200);
    assert.is((await admin(g, 'PUT', '/admin/settings', { settings: { WEBHOOK_TARGETS: 'http://localhost:9/b' } })).status, 200);
    assert.is((await admin(g, 'PUT', '/admin/integrations/webhooks', { targets: ['http://127.0.0.1:9/c'] })).status, 200);
    assert.is((await admin(g, 'POST', '/api/config', { WEBHOOK_TARGETS: 'http://example.com/hook' })).status, 422, 'only loopback');
    assert.equal((await json(await fetch(`${g.url}/admin/integrations/webhooks`))).targets.map((t: any) => t.id), [webhookTargetId('http://127.0.0.1:9/c')]);
  } finally {
    await g.close();
  }
});

test('a chat receiver dropped as a declarative alert manifest gets {text}', async () => {
  // A plain http receiver on loopback: the development switch, in the environment.
  const g = await startGateway({ ...QUIET, ALERT_ALLOW_HTTP_LOOPBACK: 'true' });
  const chat = await startAlertReceiver({ tls: false });
  try {
    assert.is((await admin(g, 'PUT', '/plugins/alert-slack/config', { settings: { url: chat.url } })).status, 200);
    await until(async () => (await json(await fetch(`${g.url}/plugins`))).plugins.find((p: any) => p.id === 'alert-slack')?.state === 'active');
    const res = await admin(g, 'POST', '/admin/alerts/test', { target: 'plugin:alert-slack' });
    assert.is(res.status, 202);
    await until(() => chat.received.length === 1);
    assert.equal(Object.keys(chat.received[0]!.body), ['text']);
    assert.match(chat.received[0]!.body.text, /^\[info\] firing: Switchboard test alert/);
  } finally {
    await g.close();
    await chat.close();
  }
});

test('a code sink written for alert-sink@^1, dropped on PLUGINS_PATH, loads and is handed the v1 Alert through the adapter', async () => {
  const v1 = await startAlertReceiver({ tls: false });
  const folder = path.join(gw.pluginsDir, 'v1-sink');
  try {
    writeFixturePlugin(gw.pluginsDir, 'v1-sink', 'v1-alert-sink', { provides: [{ kind: 'alert-sink', contract: 'alert-sink@^1' }], egress: ['settings:url'] });
    await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.some((p: any) => p.id === 'v1-sink'));
    assert.is((await admin(gw, 'PUT', '/plugins/v1-sink/config', { settings: { url: v1.url } })).status, 200);
    await until(async () => (await json(await fetch(`${gw.url}/plugins/v1-sink`))).state === 'active');
    const { event_id } = await json(await admin(gw, 'POST', '/admin/alerts/test', { target: 'plugin:v1-sink' }));
    await until(() => v1.received.length === 1);
    const { handed, title } = v1.received[0]!.body;
    assert.equal([handed.id, handed.eventId, handed.type, handed.status, handed.startsAt], ['test:switchboard', event_id, 'test', 'firing', handed.notice.starts_at]);
    assert.is(handed.starts_at, undefined, 'the v1 shape, not the notice');
    assert.is(title, `info since ${handed.notice.starts_at}`);
    await until(async () => (await deliveries(gw)).find((d) => d.event_id === event_id)?.state === 'delivered');
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await until(async () => !(await json(await fetch(`${gw.url}/plugins`))).plugins.some((p: any) => p.id === 'v1-sink'));
    await v1.close();
  }
});

test('a restart between firing and delivery loses nothing: the next instance delivers from the outbox', async () => {
  const dataDir = tempDir();
  const flaky = await startAlertReceiver();
  const port = Number(new URL(flaky.url).port);
  const url = flaky.url;
  const ca = flaky.caFile!;
  const first = await startGateway({ ...QUIET, ALERT_RETRY_BASE_MS: '1500', WEBHOOK_TARGETS: url, ALERT_WEBHOOK_CA_FILE: ca }, { dataDir });
  await flaky.close();
  const { event_id } = await json(await admin(first, 'POST', '/admin/alerts/test', { target: webhookTargetId(url) }));
  await until(async () => (await deliveries(first)).find((d) => d.event_id === event_id)?.attempts === 1);
  await first.gateway.close();
  const back = await startAlertReceiver({ port });
  const second = await startGateway({ ...QUIET, WEBHOOK_TARGETS: url, ALERT_WEBHOOK_CA_FILE: back.caFile! }, { dataDir });
  try {
    await until(() => back.received.length === 1, 10_000);
    assert.is(back.received[0]!.body.event_id, event_id);
    await until(async () => (await deliveries(second)).find((d) => d.event_id === event_id)?.state === 'delivered');
    // Exactly once: more delivery rounds send nothing more, and the row holds its two attempts.
    for (let round = 0; round < 3; round++) {
      second.gateway.surfaces.workbench.alerts.delivery.wake();
      await alertOutboxDrained(gatewayDb(second.gateway));
    }
    assert.is(back.received.length, 1, 'the receiver got the notice exactly once');
    const rows = (await deliveries(second)).filter((d) => d.event_id === event_id);
    assert.is(rows.length, 1);
    assert.is(rows[0].attempts, 2, 'one failed attempt before the restart, one delivery after');
  } finally {
    await second.close();
    await back.close();
    removeDir(dataDir);
  }
});

test('bad input: unknown fields 422, bad limits 400, no admin from elsewhere is tested with the scope table', async () => {
  assert.is((await admin(gw, 'POST', '/admin/alerts/test', { target: 'x', extra: 1 })).status, 422);
  assert.is((await admin(gw, 'POST', '/admin/alerts/test', {})).status, 422);
  assert.is((await fetch(`${gw.url}/admin/alerts/deliveries?limit=0`)).status, 400);
  assert.is((await admin(gw, 'PUT', '/admin/integrations/webhooks', { targets: 'https://x' })).status, 422);
});

test('judges: the hosted error rate, and the self-hosted judge unscrapable while it had traffic', async () => {
  const judgeFake = await startSystemOneFake();
  const hooks = await startAlertReceiver();
  // Listened on, then closed: nothing answers there (unlike a fixed port some machine may use).
  const closedPort = await freePort();
  const g = await startGateway({
    ...QUIET,
    WEBHOOK_TARGETS: hooks.url,
    ALERT_WEBHOOK_CA_FILE: hooks.caFile!,
    SYSTEM_ONE__HOSTED_URL: judgeFake.url,
    HOSTED_JUDGE_API_KEY: 'k',
    SYSTEM_ONE__MAX_RETRIES: '0',
    ALERT_JUDGE_MIN_CALLS: '2',
    ALERT_JUDGE_ERROR_RATE: '0.5',
    ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES: '0.01',
    SELFHOSTED_HTTP_PORT: String(closedPort),
  });
  const row = { question: 'q', quote: 'q', expected_answer: 'a' };
  const lab = () => admin(g, 'POST', '/api/lab/runs', { rows: [row] });
  try {
    await until(async () => (await json(await fetch(`${g.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-hosted')?.state === 'active');
    judgeFake.script({ status: 500 }, { status: 500 });
    await lab();
    await lab();
    await g.gateway.surfaces.workbench.alerts.engine.tick();
    await until(() => hooks.received.some((r) => r.body.type === 'judge_error_rate'));
    const rate = hooks.received.find((r) => r.body.type === 'judge_error_rate')!.body;
    assert.is(rate.severity, 'warning');
    assert.is(rate.context.errors, 2);

    await g.gateway.surfaces.workbench.alerts.engine.tick();
    assert.not.ok(hooks.received.some((r) => r.body.type === 'judge_selfhosted_unscrapable'), 'no traffic to the self-hosted judge yet: silent');
    await admin(g, 'POST', '/api/config', { system_one: { provider: 'selfhosted' } });
    await until(async () => (await json(await fetch(`${g.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-selfhosted')?.state === 'active');
    assert.is((await json(await lab())).error.outcome, 'unavailable', 'nothing listens on the self-hosted port');
    // Unscrapable for 0.6 s: evaluate until the alert is written.
    await until(async () => {
      await g.gateway.surfaces.workbench.alerts.engine.tick();
      return hooks.received.some((r) => r.body.type === 'judge_selfhosted_unscrapable');
    }, 10_000, 100);
    assert.is(hooks.received.find((r) => r.body.type === 'judge_selfhosted_unscrapable')!.body.severity, 'critical');
  } finally {
    await g.close();
    await hooks.close();
    await judgeFake.close();
  }
});

test.run();
