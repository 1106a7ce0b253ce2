import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin } from '../../../core/sdk/index.js';
import { validateManifest } from '../../../core/manifest/index.js';
import { DeclarativeRuntimes, declarativeBlockOf } from '../../../core/kernel/declarative-runtimes.js';
import { alertManifest, entryManifest, httpManifest, HOST } from '../manifest/fixtures.js';

const noop = () => definePlugin({ start: () => ({ providers: {} }) });

test('validation follows the registry: a block refuses as unsupported until its runtime registers', () => {
  const runtimes = new DeclarativeRuntimes({ http: noop });
  const before = validateManifest(alertManifest(), { ...HOST, declarativeBlocks: runtimes.blocks() });
  assert.is(before.manifest, undefined);
  assert.equal(before.diagnostics.map((d) => [d.code, d.path, d.severity]), [['unsupported-block', 'alert', 'error']]);
  runtimes.register('alert', noop);
  assert.equal(runtimes.blocks(), ['http', 'alert']);
  const after = validateManifest(alertManifest(), { ...HOST, declarativeBlocks: runtimes.blocks() });
  assert.ok(after.manifest, JSON.stringify(after.diagnostics));
});

test('entry manifests and supported blocks are not affected; a runtime registers once', () => {
  const runtimes = new DeclarativeRuntimes({ http: noop });
  assert.ok(validateManifest(entryManifest(), { ...HOST, declarativeBlocks: [] }).manifest);
  assert.ok(validateManifest(httpManifest(), { ...HOST, declarativeBlocks: runtimes.blocks() }).manifest);
  assert.throws(() => runtimes.register('http', noop), /already registered/);
});

test('declarativeBlockOf tells entry plugins from declarative ones, once, for every caller', () => {
  const http = validateManifest(httpManifest(), HOST).manifest!;
  const entry = validateManifest(entryManifest(), HOST).manifest!;
  const alert = validateManifest(alertManifest(), HOST).manifest!;
  assert.equal([declarativeBlockOf(http), declarativeBlockOf(entry), declarativeBlockOf(alert)], ['http', undefined, 'alert']);
});

test.run();
