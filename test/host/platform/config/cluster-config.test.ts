import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { PluginConfigStore } from '../../../../core/config/plugin-config-store.js';
import { ClusterConfig, configDocument, pluginSettingsDocument } from '../../../../host/platform/config/cluster-config.js';
import { SecretSeal } from '../../../../host/platform/secrets/secret-seal.js';
import { ConfigRegistry } from '../../../../host/platform/config/registry.js';
import { openDatabase, type OpenedDatabase } from '../../../../host/platform/db/database.js';
import { freshPostgresDatabase } from '../../../support/pg.js';
import { removeDir, tempDir } from '../../../support/gateway.js';
import { gatewayConfig, gatewayConfigModel } from '../../../support/gateway-config.js';

/** Instances on one PostgreSQL database, each with its own data directory and config file. */
let pgdb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
const opened: OpenedDatabase[] = [];
const synced: ClusterConfig[] = [];
const dirs: string[] = [];

async function instance(fileText?: string, options: { url?: string; seal?: SecretSeal } = {}) {
  const dir = tempDir();
  dirs.push(dir);
  const configFile = path.join(dir, 'switchboard.config.json');
  if (fileText !== undefined) (await import('node:fs')).writeFileSync(configFile, fileText);
  const config = gatewayConfig(new ConfigRegistry({ model: gatewayConfigModel(), env: {}, configFile, envFile: path.join(dir, 'none.env') }));
  const db = await openDatabase({ url: options.url ?? pgdb.url, dataDir: dir });
  opened.push(db);
  const logger = pino({ level: 'silent' });
  const plugins = new PluginConfigStore(path.join(dir, 'plugins.config.json'));
  const applied: number[] = [];
  const cluster = new ClusterConfig({ config, db: db.db, logger, seal: options.seal, documents: [configDocument(config, logger), pluginSettingsDocument(plugins, () => applied.push(Date.now()))] });
  await cluster.start();
  synced.push(cluster);
  return { config, cluster, configFile, plugins, applied };
}

test.before(async () => {
  pgdb = await freshPostgresDatabase();
});
test.after(async () => {
  for (const c of synced) await c.stop();
  for (const db of opened) await db.close();
  await pgdb?.drop();
  dirs.forEach(removeDir);
});

test('the first instance seeds the cluster copy; a later one with another file takes the cluster\'s', async () => {
  const first = await instance(JSON.stringify({ ALERT_REPEAT_MINUTES: 7 }));
  const second = await instance(JSON.stringify({ ALERT_REPEAT_MINUTES: 99 }));
  assert.is(first.config.get('ALERT_REPEAT_MINUTES'), 7);
  assert.is(second.config.get('ALERT_REPEAT_MINUTES'), 7, 'the cluster copy wins over a stale local file');
  assert.is(JSON.parse(readFileSync(second.configFile, 'utf8')).ALERT_REPEAT_MINUTES, 7);
});

test('a change saved on one instance is applied on the others (listeners told) at their next check', async () => {
  const a = await instance();
  const b = await instance();
  const seen: string[][] = [];
  b.config.onChange((keys) => seen.push(keys));
  await a.config.update({ CLEANUP_INTERVAL_MINUTES: 17 });
  assert.is(b.config.get('CLEANUP_INTERVAL_MINUTES'), 1440, 'not yet checked');
  await b.cluster.check();
  assert.is(b.config.get('CLEANUP_INTERVAL_MINUTES'), 17);
  assert.ok(seen.some((keys) => keys.includes('CLEANUP_INTERVAL_MINUTES')));
});

test('writes on different instances at once both survive (each starts from the cluster copy, under its lock)', async () => {
  const a = await instance();
  const b = await instance();
  await Promise.all([a.config.update({ FAX_RETRY_MAX_ATTEMPTS: 4 }), b.config.update({ KEYWORDS_BOOST: 0.5 })]);
  await a.cluster.check();
  await b.cluster.check();
  for (const x of [a, b]) {
    assert.is(x.config.get('FAX_RETRY_MAX_ATTEMPTS'), 4);
    assert.is(x.config.get('KEYWORDS_BOOST'), 0.5);
  }
});

test('plugin settings saved on one instance reach the others\' stores (and the kernel is told)', async () => {
  const a = await instance();
  const b = await instance();
  await a.plugins.put('providera', { enabled: true, settings: { baseUrl: 'https://a.example/v2' } });
  await b.plugins.put('providerb', { enabled: false, settings: {} });
  await a.cluster.check();
  await b.cluster.check();
  for (const x of [a, b]) {
    assert.equal(x.plugins.get('providera').settings, { baseUrl: 'https://a.example/v2' });
    assert.is(x.plugins.get('providerb').enabled, false);
  }
  assert.ok(b.applied.length >= 1, 'the instance that took a copy applied it');
});

test('a refused write publishes nothing', async () => {
  const a = await instance();
  const b = await instance();
  await b.cluster.check();
  const before = b.config.get('CLEANUP_INTERVAL_MINUTES');
  const err = await a.config.update({ CLEANUP_INTERVAL_MINUTES: -3 }).catch((e: unknown) => e);
  assert.instance(err, Error);
  await b.cluster.check();
  assert.is(b.config.get('CLEANUP_INTERVAL_MINUTES'), before);
});

test('with SECRETS_KEY the shared copies are sealed (plugin secrets are in them), copies stored plain before are sealed at start, and instances with the key still share changes', async () => {
  const own = await freshPostgresDatabase();
  try {
    const before = await instance(undefined, { url: own.url });
    await before.plugins.put('providera', { enabled: true, settings: { apiSecret: 'pa-secret-value-1' } });
    const rows = () => opened.at(-1)!.db.selectFrom('shared_config').select(['id', 'body']).orderBy('id').execute();
    assert.ok((await rows()).some((r) => r.body.includes('pa-secret-value-1')), 'without a key the copy is plain');
    const seal = new SecretSeal('the-cluster-secrets-key-of-32-chars-or-more');
    const a = await instance(undefined, { url: own.url, seal });
    const b = await instance(undefined, { url: own.url, seal });
    await a.plugins.put('providerb', { enabled: true, settings: { apiSecret: 'pb-secret-value-2' } });
    await b.cluster.check();
    assert.equal(b.plugins.get('providerb').settings, { apiSecret: 'pb-secret-value-2' });
    assert.equal(b.plugins.get('providera').settings, { apiSecret: 'pa-secret-value-1' });
    const sealed = await rows();
    assert.ok(sealed.every((r) => SecretSeal.isSealed(r.body)), 'every copy sealed');
    assert.not.ok(JSON.stringify(sealed).includes('secret-value'));
    await instance(undefined, { url: own.url }).then(
      () => assert.unreachable('an instance without the key cannot take the sealed copies'),
      (err: Error) => assert.match(err.message, /SECRETS_KEY is not set/),
    );
  } finally {
    for (const c of synced.splice(0)) await c.stop();
    for (const db of opened.splice(0)) await db.close();
    await own.drop();
  }
});

test.run();
