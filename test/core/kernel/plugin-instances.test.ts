import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Kernel, SettingsValidationError } from '../../../core/kernel/kernel.js';
import { OutboundGuard } from '../../../core/kernel/egress.js';
import { PluginConfigStore } from '../../../core/config/plugin-config-store.js';
import { createAlertSinkPlugin } from '../../../core/declarative/alert-sink.js';
import { ROOT, tempDir, removeDir } from '../../support/gateway.js';
import { alertNotice } from '../../support/manifest-alert-sink.js';
import { startAlertReceiver, type AlertReceiver } from '../../fakes/alert-receiver.js';

// Instances of the built-in alert-webhook manifest, on the real kernel and its declarative runtime.
let receiver: AlertReceiver;
let dir: string;
let kernel: Kernel;
const logs: string[] = [];
const NOTICE = alertNotice({ id: 'test:1', type: 'test', title: 'instance test' });
const manifestFile = () => path.join(dir, 'manifests', 'alert-webhook.json');

test.before(async () => {
  receiver = await startAlertReceiver({ tls: false });
  dir = tempDir('switchboard-instances-');
  const manifests = path.join(dir, 'manifests');
  mkdirSync(manifests);
  for (const id of ['alert-webhook', 'alert-slack']) copyFileSync(path.join(ROOT, 'manifests', `${id}.json`), path.join(manifests, `${id}.json`));
  kernel = new Kernel({
    hostVersion: '0.1.0',
    searchPaths: [manifests],
    roots: { packageRoot: ROOT, buildRoot: path.join(ROOT, 'dist') },
    configStore: new PluginConfigStore(path.join(dir, 'plugins.config.json')),
    env: {},
    dataDir: dir,
    logger: pino({ level: 'info' }, { write: (l: string) => void logs.push(l) }),
    metrics: new Registry(),
    watch: false,
    // The test's receivers are plain http on loopback (ALERT_ALLOW_HTTP_LOOPBACK); no private host is allowed by the guard.
    declarative: { alert: (m) => createAlertSinkPlugin(m, { allowHttpLoopback: () => true }) },
    outbound: new OutboundGuard(() => []),
    timeouts: { drainMs: 10_000 },
  });
  await kernel.start();
});
test.after(async () => {
  await kernel?.stop();
  await receiver?.close();
  removeDir(dir);
});
test.before.each(() => {
  receiver.received.length = 0;
});

const deliver = (id: string) => kernel.withProvider('alert-sink', id, (sink) => sink.deliver(NOTICE));

test('a declared instance is a plugin of its own: listed as an instance, active, delivering, while its manifest waits for its own settings', async () => {
  await kernel.setInstances('alert-webhook', [{ id: 'alert-webhook-one', settings: { url: receiver.url }, source: 'env' }], { origin: 'WEBHOOK_TARGETS' });
  const view = kernel.get('alert-webhook-one')!;
  assert.equal([view.instance_of, view.state, view.generation, view.enabled, view.kinds, view.declarative], ['alert-webhook', 'active', 1, true, ['alert-sink'], true]);
  assert.equal([kernel.get('alert-webhook')!.instance_of, kernel.get('alert-webhook')!.state], [null, 'needs-config']);
  assert.equal(kernel.instancesOf('alert-webhook'), ['alert-webhook-one']);
  assert.ok(kernel.providersOf('alert-sink').includes('alert-webhook-one'));
  assert.equal(await deliver('alert-webhook-one'), { ok: true, status: 200 });
  assert.equal(receiver.received.map((r) => r.body), [NOTICE]);
  assert.equal((await kernel.checkHealth('alert-webhook-one'))['alert-webhook-one']?.info, { receiver: `http://${new URL(receiver.url).host}/***` });
});

test('its settings are the host\'s: secret ones masked and listed for masking, never stored, not writable over the config API', async () => {
  const config = (await kernel.configView('alert-webhook-one'))!;
  assert.equal([config.settings.url, config.secrets.url, config.sources.url, config.enabled], ['***', { set: true }, 'env', true]);
  assert.equal(config.fields.map((f) => [f.name, f.env]), [['url', null]], 'the manifest\'s variable (ALERT_WEBHOOK_URL) is its own plugin\'s, not the instance\'s');
  assert.ok(kernel.secretValues().includes(receiver.url));
  const store = path.join(dir, 'plugins.config.json');
  assert.not.ok(readFileSafe(store).includes('alert-webhook-one'));
  for (const update of [{ settings: { url: 'https://elsewhere.example/x' } }, { enabled: false }]) {
    const refused = await kernel.updateConfig('alert-webhook-one', update).catch((err: unknown) => err);
    assert.instance(refused, SettingsValidationError);
    assert.match((refused as Error).message, /instance of alert-webhook: its settings come from the host \(WEBHOOK_TARGETS\)/);
  }
  assert.is(kernel.get('alert-webhook-one')!.generation, 1, 'nothing reloaded');
});

test('a changed setting starts a new generation and drains the old one; an instance left out drains, stops and is removed', async () => {
  const lease = kernel.lease('alert-sink', 'alert-webhook-one');
  const stopped: number[] = [];
  kernel.events.on('generation-stopped', ({ pluginId, generation }) => pluginId === 'alert-webhook-one' && stopped.push(generation));
  const other = `${receiver.url}?second`;
  await kernel.setInstances('alert-webhook', [{ id: 'alert-webhook-one', settings: { url: other }, source: 'env' }]);
  const view = kernel.get('alert-webhook-one')!;
  assert.is(view.generation, 2);
  assert.equal(view.generations.map((g) => [g.number, g.state, g.leases]), [[2, 'active', 0], [1, 'draining', 1]]);
  assert.equal(await lease.provider.deliver(NOTICE), { ok: true, status: 200 }, 'a lease keeps its generation');
  assert.equal(await deliver('alert-webhook-one'), { ok: true, status: 200 });
  assert.equal(receiver.received.map((r) => r.body.id), [NOTICE.id, NOTICE.id]);
  const removed = new Promise<void>((resolve) => kernel.events.on('removed', ({ pluginId }) => pluginId === 'alert-webhook-one' && resolve()));
  lease.release();
  await kernel.setInstances('alert-webhook', []);
  await removed;
  assert.is(kernel.get('alert-webhook-one'), undefined);
  assert.equal(kernel.instancesOf('alert-webhook'), []);
  assert.equal(stopped.sort(), [1, 2]);
  assert.ok(kernel.get('alert-webhook'), 'the manifest\'s own plugin stays');
});

test('where the settings came from decides the guard: an environment URL is the operator\'s, a run-time one reaches no loopback address', async () => {
  await kernel.setInstances('alert-webhook', [
    { id: 'alert-webhook-env', settings: { url: `${receiver.url}?env` }, source: 'env' },
    { id: 'alert-webhook-runtime', settings: { url: `${receiver.url}?runtime` }, source: 'config' },
  ]);
  assert.equal(await deliver('alert-webhook-env'), { ok: true, status: 200 });
  const refused = await deliver('alert-webhook-runtime');
  assert.equal([refused.ok, refused.permanent], [false, true]);
  assert.match(refused.detail!, /refused: it is a loopback/);
  assert.is(receiver.received.length, 1);
  assert.is((await kernel.configView('alert-webhook-runtime'))!.sources.url, 'config');
  await kernel.setInstances('alert-webhook', []);
});

test('an edit of the manifest reloads its instances; a manifest that turns invalid leaves them serving', async () => {
  await kernel.setInstances('alert-webhook', [{ id: 'alert-webhook-one', settings: { url: receiver.url }, source: 'env' }]);
  const before = kernel.get('alert-webhook-one')!.generation!;
  const manifest = JSON.parse(readFileSync(manifestFile(), 'utf8'));
  writeFileSync(manifestFile(), JSON.stringify({ ...manifest, version: '1.0.1' }));
  await kernel.rescan();
  assert.equal([kernel.get('alert-webhook-one')!.generation, kernel.get('alert-webhook-one')!.version], [before + 1, '1.0.1']);
  writeFileSync(manifestFile(), JSON.stringify({ ...manifest, oops: 1 }));
  await kernel.rescan();
  const broken = kernel.get('alert-webhook-one')!;
  assert.equal([broken.state, broken.generation], ['active', before + 1]);
  assert.match(broken.last_error ?? '', /previous generation keeps serving/);
  assert.equal(await deliver('alert-webhook-one'), { ok: true, status: 200 });
  writeFileSync(manifestFile(), JSON.stringify(manifest));
  await kernel.rescan();
  assert.is(kernel.get('alert-webhook-one')!.last_error, null);
  await kernel.setInstances('alert-webhook', []);
});

test('when the manifest is removed its instances drain and stop (listed while declared); when it is back they start again', async () => {
  await kernel.setInstances('alert-webhook', [{ id: 'alert-webhook-one', settings: { url: receiver.url }, source: 'env' }]);
  const text = readFileSync(manifestFile(), 'utf8');
  rmSync(manifestFile());
  await kernel.rescan();
  assert.is(kernel.get('alert-webhook'), undefined);
  const orphan = kernel.get('alert-webhook-one')!;
  assert.equal([orphan.state, orphan.generation, orphan.last_error], ['rejected', null, 'an instance of alert-webhook, whose manifest is not found']);
  assert.not.ok(kernel.isActive('alert-sink', 'alert-webhook-one'));
  writeFileSync(manifestFile(), text);
  await kernel.rescan();
  assert.equal([kernel.get('alert-webhook-one')!.state, kernel.get('alert-webhook-one')!.last_error], ['active', null]);
  assert.equal(await deliver('alert-webhook-one'), { ok: true, status: 200 });
  await kernel.setInstances('alert-webhook', []);
});

test('ids: an instance may not take its manifest\'s id or another plugin\'s', async () => {
  assert.throws(() => kernel.setInstances('alert-webhook', [{ id: 'alert-webhook', settings: {}, source: 'env' }]), /other than the manifest's own/);
  assert.throws(() => kernel.setInstances('alert-webhook', [{ id: 'Bad Id', settings: {}, source: 'env' }]), /plugin ids are/);
  await kernel.setInstances('alert-webhook', [{ id: 'alert-slack', settings: { url: receiver.url }, source: 'env' }]);
  assert.equal([kernel.get('alert-slack')!.instance_of, kernel.get('alert-slack')!.state], [null, 'needs-config'], 'the manifest keeps its plugin');
  assert.ok(logs.some((l) => l.includes('an instance id is taken by another plugin')));
  await kernel.setInstances('alert-webhook', []);
  assert.ok(kernel.get('alert-slack'), 'leaving it out removes nothing of the manifest\'s plugin');
});

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

test.run();
