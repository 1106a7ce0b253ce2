import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { CONTRACT_VERSIONS } from '../../../core/sdk/index.js';
import { ManifestValidations, scanManifests } from '../../../core/kernel/manifest-scan.js';
import type { ManifestFile } from '../../../core/kernel/manifest-source.js';

const facts = { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS };
const manifest = (id: string, version = '1.0.0') =>
  JSON.stringify({
    manifestVersion: 1, id, name: id, version, description: 'd', author: 'a', host: '^0.1.0',
    provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], capabilities: [], egress: [], entry: 'index.js',
  });
const file = (path: string, text: string): ManifestFile => ({ path, searchDir: '/s', text, hash: createHash('sha256').update(text).digest('hex') });

test('a second manifest with the same id becomes a duplicate record; the first found wins', () => {
  const scanned = scanManifests([file('/a/x/manifest.json', manifest('x')), file('/b/x/manifest.json', manifest('x', '2.0.0'))], facts, new Map());
  assert.is(scanned.length, 2);
  assert.is(scanned[0]!.id, 'x');
  assert.is(scanned[0]!.manifest?.version, '1.0.0');
  assert.is(scanned[1]!.id, 'duplicate:/b/x/manifest.json');
  assert.is(scanned[1]!.manifest, undefined);
  assert.is(scanned[1]!.diagnostics[0]!.code, 'duplicate-id');
  assert.match(scanned[1]!.diagnostics[0]!.message, /already provided by \/a\/x\/manifest\.json/);
});

test('a rescan validates only what changed: the same content under the same host facts reuses its result', () => {
  const validations = new ManifestValidations();
  const [x, y] = [file('/a/x.json', manifest('x')), file('/a/y.json', manifest('y'))];
  const first = validations.validate([x, y], facts);
  const again = validations.validate([x, file('/a/y.json', manifest('y', '2.0.0'))], facts);
  assert.is(again[0], first[0], 'unchanged content: the same result');
  assert.is.not(again[1], first[1], 'changed content: validated again');
  assert.is(again[1]!.manifest?.version, '2.0.0');
  // The host's facts are part of the verdict: another host version validates everything again.
  const newerHost = validations.validate([x], { ...facts, hostVersion: '2.0.0' });
  assert.is.not(newerHost[0], first[0]);
  assert.is(newerHost[0]!.manifest, undefined, 'host ^0.1.0 does not match 2.0.0');
  assert.ok(newerHost[0]!.diagnostics.some((d) => d.severity === 'error'));
});

test('a manifest broken past reading its id keeps the id its file had', () => {
  const scanned = scanManifests([file('/a/x/manifest.json', '{ "id": ')], facts, new Map([['/a/x/manifest.json', 'x']]));
  assert.is(scanned[0]!.id, 'x');
  assert.is(scanned[0]!.diagnostics[0]!.code, 'invalid-json');
  const fresh = scanManifests([file('/a/y.json', '{ "id": ')], facts, new Map());
  assert.is(fresh[0]!.id, 'invalid:y.json');
});

test('an invalid manifest with a readable id is named by it, only when the id obeys the id rule', () => {
  const named = scanManifests([file('/a/z.json', JSON.stringify({ id: 'zed', version: 'nope' }))], facts, new Map());
  assert.is(named[0]!.id, 'zed');
  const badId = scanManifests([file('/a/z.json', JSON.stringify({ id: '-zed' }))], facts, new Map());
  assert.is(badId[0]!.id, 'invalid:z.json');
});

const faxManifest = (id: string, extra: Record<string, unknown>) =>
  JSON.stringify({
    manifestVersion: 1, id, name: id, version: '1.0.0', description: 'd', author: 'a', host: '^0.1.0',
    provides: [{ kind: 'fax', contract: 'fax@^1' }], entry: 'index.js', ...extra,
  });

test('an alias another plugin has as id or an earlier manifest claimed refuses the later manifest', () => {
  const scanned = scanManifests(
    [
      file('/a/one.json', faxManifest('one', { aliases: ['first'] })),
      file('/a/two.json', faxManifest('two', { aliases: ['first'] })),
      file('/a/three.json', faxManifest('three', { aliases: ['one'] })),
      file('/a/four.json', faxManifest('four', { aliases: ['fourth'] })),
    ],
    facts,
    new Map(),
  );
  assert.equal(scanned.map((p) => [p.id, Boolean(p.manifest), p.diagnostics.map((d) => d.code)]), [
    ['one', true, []],
    ['two', false, ['alias-taken']],
    ['three', false, ['alias-taken']],
    ['four', true, []],
  ]);
  assert.match(scanned[1]!.diagnostics[0]!.message, /"first" is already the id or an alias of plugin "one"/);
});

test('a webhook alias path an earlier manifest claimed refuses the later manifest (paths compare case-insensitively)', () => {
  const hook = (path: string) => ({ webhookAliases: [{ path, kind: 'callback', contentType: 'application/json', summary: 's' }] });
  const scanned = scanManifests([file('/a/one.json', faxManifest('one', hook('/hook'))), file('/a/two.json', faxManifest('two', hook('/HOOK')))], facts, new Map());
  assert.ok(scanned[0]!.manifest);
  assert.is(scanned[1]!.manifest, undefined);
  assert.equal(scanned[1]!.diagnostics.map((d) => [d.code, d.path]), [['webhook-alias-taken', 'webhookAliases.0.path']]);
});

test.run();
