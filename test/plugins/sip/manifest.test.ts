import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { CONTRACT_VERSIONS, isPluginDefinition } from 'switchboard/sdk';
import { parseManifestText } from '../../../core/manifest/validate.js';
import plugin from '../../../plugins/sip/index.js';

test('manifests/sip.json validates cleanly and names a fax provider on raw TCP (no HTTP egress)', async () => {
  const text = await readFile(new URL('../../../../manifests/sip.json', import.meta.url), 'utf8');
  const { manifest, diagnostics } = parseManifestText(text, { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS });
  assert.equal(diagnostics, []);
  assert.ok(manifest);
  assert.is(manifest.id, 'sip');
  assert.equal(manifest.provides, [{ kind: 'fax', contract: 'fax@^1' }]);
  assert.equal(manifest.egress, []);
  assert.is(manifest.entry, '../plugins/sip/index.ts');
});

test('the entry module exports a plugin made with definePlugin', () => {
  assert.ok(isPluginDefinition(plugin));
});

test.run();
