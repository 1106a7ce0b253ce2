import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { resolveSettings } from '../../../core/kernel/settings-resolver.js';
import { PluginConfigStore } from '../../../core/config/plugin-config-store.js';
import { removeDir, tempDir } from '../../support/gateway.js';

/** Keys a caller (or a hand-edited file) can send that Object.prototype also answers to. */
const PROTOTYPE_KEYS = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];

test('a schema field named like an Object.prototype member still gets its "default" source', () => {
  const schema = z.object({ toString: z.string().default('d'), constructor: z.string().default('c') });
  const resolved = resolveSettings(schema, {}, {}, {});
  assert.equal(resolved.sources, { toString: 'default', constructor: 'default' });
});

test('a stored "__proto__" key stays data: it neither replaces the prototype nor leaks fields', () => {
  const stored = JSON.parse('{"__proto__": {"polluted": "yes"}, "greeting": "hi"}') as Record<string, unknown>;
  const resolved = resolveSettings(undefined, stored, {}, {});
  assert.is(Object.getPrototypeOf(resolved.values), Object.prototype);
  assert.is((resolved.values as Record<string, unknown>).polluted, undefined);
  assert.ok(Object.hasOwn(resolved.values, '__proto__'));
  assert.is(resolved.sources.greeting, 'store');
});

test('the plugin config store knows only the plugins its file names', () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'plugins.config.json');
    writeFileSync(file, JSON.stringify({ echo: { enabled: false, settings: { greeting: 'x' } } }));
    const store = new PluginConfigStore(file);
    assert.ok(store.has('echo'));
    assert.is(store.get('echo').enabled, false);
    for (const id of [...PROTOTYPE_KEYS, '__proto__']) {
      assert.is(store.has(id), false, id);
      assert.equal(store.get(id), { enabled: true, settings: {} }, id);
    }
  } finally {
    removeDir(dir);
  }
});

test.run();
