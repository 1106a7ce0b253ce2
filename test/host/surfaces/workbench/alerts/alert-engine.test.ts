import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { ConfigRegistry } from '../../../../../host/platform/config/registry.js';
import { ClusterLeases } from '../../../../../host/platform/db/cluster-leases.js';
import { openDatabase } from '../../../../../host/platform/db/database.js';
import { AlertEngine } from '../../../../../host/surfaces/workbench/alerts/alert-engine.js';
import { AlertOutbox } from '../../../../../host/surfaces/workbench/alerts/alert-outbox.js';
import type { FiringCondition } from '../../../../../host/surfaces/workbench/alerts/alert-notice.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { startGateway, postFax, json, until, type TestGateway } from '../../../../support/gateway.js';
import { tempDir, removeDir } from '../../../../support/gateway.js';
import { startAlertReceiver } from '../../../../fakes/alert-receiver.js';
import { openGatewayDatabase, type GatewayDatabase } from '../../../../support/database.js';
import { gatewayConfig, gatewayConfigModel } from '../../../../support/gateway-config.js';

function engineOn(db: GatewayDatabase, env: Record<string, string>, conditions: FiringCondition[], lines: string[]) {
  const dir = tempDir();
  const config = gatewayConfig(new ConfigRegistry({ model: gatewayConfigModel(), env, configFile: path.join(dir, 'config.json'), envFile: path.join(dir, 'none.env') }));
  const metrics = new Registry();
  const outbox = new AlertOutbox(db.db, db.dialect);
  const engine = new AlertEngine({
    db: db.db,
    outbox,
    config,
    logger: pino({ level: 'info' }, { write: (l: string) => void lines.push(l) }),
    metrics,
    leases: new ClusterLeases(db.db, db.dialect, () => 30_000),
    sources: [{ name: 'scripted', evaluate: () => conditions }],
    targets: () => ['plugin:a', 'plugin:b'],
    onEnqueued: () => {},
  });
  return { engine, outbox, metrics, dir };
}

const condition = (severity: string): FiringCondition => ({ type: 'scripted', category: 'test', severity, labels: { n: '1' }, title: 'scripted', context: {} });

test('a severity that is not a known label is never dropped silently: logged, counted, not delivered', async () => {
  const dataDir = tempDir();
  const db = await openGatewayDatabase({ url: undefined, dataDir });
  const lines: string[] = [];
  const { engine, outbox, metrics, dir } = engineOn(db, { ALERT_NOTIFY_SEVERITIES: 'crit,warning' }, [condition('sev-x')], lines);
  try {
    await engine.tick();
    assert.equal(await outbox.recent(10), []);
    assert.match(await metrics.metrics(), /switchboard_alerts_filtered_total\{severity="sev-x",reason="unknown_severity"\} 1/);
    const messages = lines.map((l) => JSON.parse(l).msg as string);
    assert.ok(messages.some((m) => m.includes('"sev-x" is not one of critical, warning, info')), messages.join('\n'));
    assert.ok(messages.some((m) => m.includes('ALERT_NOTIFY_SEVERITIES names crit')), 'a filter value no alert emits is warned about');
  } finally {
    await db.close();
    removeDir(dataDir);
    removeDir(dir);
  }
});

test('one notice per target, written once however many ticks see it', async () => {
  const dataDir = tempDir();
  const db = await openGatewayDatabase({ url: undefined, dataDir });
  const { engine, outbox, dir } = engineOn(db, {}, [condition('warning')], []);
  try {
    await engine.tick();
    await engine.tick();
    const rows = await outbox.recent(10);
    assert.equal(rows.map((r) => r.target_id).sort(), ['plugin:a', 'plugin:b']);
    assert.equal(new Set(rows.map((r) => r.event_key)).size, 1);
  } finally {
    await db.close();
    removeDir(dataDir);
    removeDir(dir);
  }
});

test('PostgreSQL: two gateways evaluating the same condition deliver each notice once', async () => {
  const pg = await freshPostgresDatabase();
  const receiver = await startAlertReceiver();
  const env = {
    DATABASE_URL: pg.url,
    FAX_BACKEND: 'providerb',
    // A provider nobody answers for: the job waits in the dispatch backlog.
    PROVIDERB_BASE_URL: 'http://127.0.0.1:9',
    PROVIDERB_PROJECT_ID: 'p1',
    PROVIDERB_API_KEY: 'k',
    PROVIDERB_API_SECRET: 's',
    ALERT_FAX_BACKLOG_MINUTES: '0.01',
    ALERT_EVAL_INTERVAL_SECONDS: '3600',
    WEBHOOK_TARGETS: receiver.url,
    ALERT_WEBHOOK_CA_FILE: receiver.caFile!,
    FAX_RETRY_BASE_MS: '60000',
    ALERT_WEBHOOK_TIMEOUT: '30',
  };
  const gateways: TestGateway[] = [];
  try {
    gateways.push(await startGateway(env), await startGateway(env));
    const res = await postFax(gateways[0]!.url, '+15551234567', 'a letter that waits');
    assert.is(res.status, 202);
    await new Promise((r) => setTimeout(r, 800));
    for (let i = 0; i < 3; i++) await Promise.all(gateways.map((g) => g.gateway.surfaces.workbench.alerts.engine.tick()));
    await until(() => receiver.received.length >= 1);
    await new Promise((r) => setTimeout(r, 1000));
    // One notice; a receiver that answered too slowly for the client may see it again, always
    // under the same idempotency key (the row is retried, never written twice).
    const notices = receiver.received.map((r) => r.body);
    assert.equal([...new Set(notices.map((n) => `${n.type}/${n.status}/${n.event_id}`))], [`fax_backlog_age/firing/${notices[0].event_id}`]);
    assert.ok(receiver.received.every((r) => r.headers['idempotency-key'] === notices[0].event_id));
    const rows = (await json(await fetch(`${gateways[1]!.url}/admin/alerts/deliveries`))).deliveries;
    assert.is(rows.filter((d: any) => d.alert_id === notices[0].id).length, 1);
  } finally {
    for (const g of gateways) await g.close();
    await receiver.close();
    await pg.drop();
  }
});

test.run();
