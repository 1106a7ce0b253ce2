import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, ROOT, startGateway, until, type TestGateway } from '../../../support/gateway.js';

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

test('a manifest dropped into DATA_DIR/manifests is picked up by the watcher (the tour)', async () => {
  const dir = path.join(gw.dataDir, 'manifests');
  // Its own id, so nothing of the install test below can be mistaken for it.
  const manifest = { ...JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/keyfax.json'), 'utf8')), id: 'keyfax-dropped' };
  const file = path.join(dir, 'keyfax-dropped.json');
  // One plain write, as `cp` does. This test runs first: a rescan for another reason while the
  // watcher still waits for the write to finish would list the file before the watcher reports
  // it, and the watcher then never reports its removal (a known race of the kernel's watcher).
  writeFileSync(file, JSON.stringify(manifest, null, 2));
  const listed = async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: { id: string }) => p.id === 'keyfax-dropped');
  const found = await until(listed, 20_000);
  assert.is(found.manifest_path, file);
  rmSync(file);
  await until(async () => !(await listed()), 20_000).catch(async (err) => {
    throw new Error(`${err.message}: ${JSON.stringify(await listed())} ${gw.logs.slice(-15).join('\n')}`);
  });
  assert.equal(packageManifests(), before);
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
