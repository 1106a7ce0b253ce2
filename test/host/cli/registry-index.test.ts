import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinEntries, renderRegistryIndex } from '../../../host/cli/registry-index.js';
import { RegistryCatalogue } from '../../../host/platform/plugins/registry-catalogue.js';

// dist/test/host/cli/ -> the project root, where manifests/ and registry/ live (not compiled).
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const indexFile = path.join(root, 'registry/index.json');

test('one built-in entry per manifests/<id>.json, read from the manifest', () => {
  const ids = readdirSync(path.join(root, 'manifests')).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)).sort();
  const entries = builtinEntries(root);
  assert.equal(entries.map((e) => e.id), ids);
  const slack = entries.find((e) => e.id === 'alert-slack')!;
  const text = readFileSync(path.join(root, 'manifests/alert-slack.json'), 'utf8');
  const manifest = JSON.parse(text);
  assert.equal(slack, {
    id: 'alert-slack',
    name: manifest.name,
    description: manifest.description,
    version: manifest.version,
    kinds: ['alert-sink'],
    maturity: manifest.maturity,
    builtin: true,
    manifest: '../manifests/alert-slack.json',
    tags: ['alert-sink', 'declarative'],
    versions: [{ version: manifest.version, integrity: `sha256-${createHash('sha256').update(text).digest('base64')}`, host: manifest.host }],
  });
  assert.equal(entries.find((e) => e.id === 'storage-local')!.tags, ['storage'], 'a plugin with code is not tagged declarative');
});

test('registry/index.json holds exactly the catalogue the manifests produce', () => {
  assert.fixture(
    readFileSync(indexFile, 'utf8'),
    renderRegistryIndex(root),
    'registry/index.json drifted from manifests/: run `node dist/host/cli/registry-index.js --write`',
  );
});

test('the generated catalogue reads cleanly and keeps the installable entries with their manifests', () => {
  const catalogue = new RegistryCatalogue(path.join(root, 'registry'));
  const { entries, problem } = catalogue.entries();
  assert.is(problem, undefined);
  const installable = entries.filter((e) => !e.builtin);
  assert.ok(installable.length > 0);
  for (const entry of installable) {
    const manifest = JSON.parse(readFileSync(catalogue.manifestPath(entry), 'utf8'));
    assert.is(manifest.id, entry.id);
  }
});

test.run();
