import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateManifest } from '../../../core/manifest/index.js';
import { entryManifest, httpManifest, HOST } from './fixtures.js';

const callback = (path: string) => ({ path, kind: 'callback', contentType: 'application/json', summary: 'Status callback' });
const codesAt = (raw: unknown) => validateManifest(raw, HOST).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}@${d.path}`);

test('a fax manifest may declare webhook aliases, judge-style aliases and the default flag of its kind', () => {
  const m = httpManifest();
  m.webhookAliases = [callback('/acme-callback'), { ...callback('/_internal/acme/inbound'), kind: 'inbound' }];
  m.aliases = ['acme'];
  m.provides[0].default = true;
  const result = validateManifest(m, HOST);
  assert.equal(result.diagnostics, []);
  assert.equal(result.manifest?.webhookAliases?.map((a) => a.path), ['/acme-callback', '/_internal/acme/inbound']);
  assert.is(result.manifest?.provides[0]?.default, true);
});

test('a webhook alias path must be literal, start with "/" and stay out of the host\'s own roots', () => {
  for (const path of ['acme-callback', '/hooks/:id', '/hooks/*', '/hooks?x=1', '/a//b', '/a/../b', '/api/acme', '/API/acme', '/admin', '/fax/cb', '/webhooks/acme/callback', '/plugins/x', '/openapi.json']) {
    const m = httpManifest();
    m.webhookAliases = [callback(path)];
    assert.equal(codesAt(m), ['invalid-webhook-alias@webhookAliases.0.path'], path);
  }
});

test('webhook aliases belong to fax plugins, each path once; the other fields are checked too', () => {
  const storage = entryManifest();
  storage.webhookAliases = [callback('/store-hook')];
  assert.equal(codesAt(storage), ['invalid-webhook-alias@webhookAliases']);
  const twice = httpManifest();
  twice.webhookAliases = [callback('/acme-callback'), { ...callback('/ACME-callback'), kind: 'inbound' }];
  assert.equal(codesAt(twice), ['invalid-webhook-alias@webhookAliases.1.path']);
  const shape = httpManifest();
  shape.webhookAliases = [{ ...callback('/acme-callback'), kind: 'status', extra: 1 }];
  assert.equal(codesAt(shape).sort(), ['invalid-field@webhookAliases.0.kind', 'unknown-key@webhookAliases.0.extra']);
});

test('an alias follows the id rule and is neither the plugin\'s own id nor listed twice', () => {
  const m = entryManifest();
  m.aliases = ['Hosted', 'local-storage', 'cold', 'cold'];
  assert.equal(codesAt(m).sort(), ['alias-taken@aliases.1', 'alias-taken@aliases.3', 'invalid-alias@aliases.0']);
});

test.run();
