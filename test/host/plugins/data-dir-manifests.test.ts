import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, ROOT, startGateway, until, writeManifest, type TestGateway } from '../../support/gateway.js';

const packageManifests = () => readdirSync(path.join(ROOT, 'manifests')).sort();
let gw: TestGateway;
let before: string[];

test.before(async () => {
  before = packageManifests();
  gw = await startGateway();
});
test.after(async () => {
  await gw.close();
});

test('without MANIFESTS_DIR, DATA_DIR/manifests exists (0700) and is where installed manifests go', async () => {
  const dir = path.join(gw.dataDir, 'manifests');
  assert.ok(existsSync(dir));
  assert.is((statSync(dir).mode & 0o777).toString(8), '700');

  const res = await fetch(`${gw.url}/plugin-registry/keyfax/install`, { method: 'POST' });
  const view = await json(res);
  assert.is(res.status, 201, JSON.stringify(view));
  assert.is(view.manifest_path, path.join(dir, 'keyfax.json'));
  assert.ok(existsSync(path.join(dir, 'keyfax.json')));
  assert.equal(packageManifests(), before, "the package's manifests/ is never written");

  const removed = await fetch(`${gw.url}/plugin-registry/keyfax`, { method: 'DELETE' });
  assert.is(removed.status, 200, await removed.text());
  assert.not.ok(existsSync(path.join(dir, 'keyfax.json')));
});

test('a manifest dropped into DATA_DIR/manifests is picked up by the watcher (the tour)', async () => {
  const dir = path.join(gw.dataDir, 'manifests');
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/keyfax.json'), 'utf8'));
  writeManifest(path.join(dir, 'keyfax.json'), manifest);
  const found = await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: { id: string }) => p.id === 'keyfax'), 10_000);
  assert.is(found.manifest_path, path.join(dir, 'keyfax.json'));
  rmSync(path.join(dir, 'keyfax.json'));
  await until(async () => !(await json(await fetch(`${gw.url}/plugins`))).plugins.some((p: { id: string }) => p.id === 'keyfax'), 10_000);
  assert.equal(packageManifests(), before);
});

test('MANIFESTS_DIR still overrides, and is created when missing', async () => {
  const custom = path.join(gw.dataDir, 'custom', 'drop-here');
  const other = await startGateway({ MANIFESTS_DIR: custom }, { watch: false });
  try {
    assert.ok(existsSync(custom));
    const res = await fetch(`${other.url}/plugin-registry/keyfax/install`, { method: 'POST' });
    assert.is(res.status, 201, await res.text());
    assert.ok(existsSync(path.join(custom, 'keyfax.json')));
    assert.not.ok(existsSync(path.join(other.dataDir, 'manifests', 'keyfax.json')));
  } finally {
    await other.close();
  }
});

test.run();
