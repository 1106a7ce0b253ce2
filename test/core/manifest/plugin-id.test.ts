import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isPluginId, validateManifest } from '../../../core/manifest/index.js';
import { pluginId } from '../../../host/platform/config/model/field-kinds.js';
import { entryManifest, HOST } from './fixtures.js';

const valid = ['a', 'x1', 'acme-fax', '0day', 'a'.repeat(64)];
const invalid = ['', '-lead', 'Upper', 'under_score', 'dot.ted', 'a'.repeat(65), 'sp ace', 'é'];

test('one id rule: the manifest validator, isPluginId and the host config model agree', () => {
  for (const id of valid) {
    assert.ok(isPluginId(id), id);
    assert.ok(pluginId().safeParse(id).success, `config: ${id}`);
    assert.ok(validateManifest({ ...entryManifest(), id }, HOST).manifest, `manifest: ${id}`);
  }
  for (const id of invalid) {
    assert.not.ok(isPluginId(id), id);
    assert.not.ok(pluginId().safeParse(id).success, `config: ${id}`);
    const result = validateManifest({ ...entryManifest(), id }, HOST);
    assert.ok(result.diagnostics.some((d) => d.code === 'invalid-id'), `manifest: ${id}`);
  }
});

test.run();
