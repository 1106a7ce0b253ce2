import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { envMapFromManifest, settingsSchemaFromManifest, validateManifest, type ManifestSettings } from '../../../core/manifest/index.js';
import { isSecretSchema, secretFields } from '../../../core/sdk/settings.js';
import { resolveSettings } from '../../../core/kernel/settings-resolver.js';
import { HOST, httpManifest } from './fixtures.js';

const settings: ManifestSettings = {
  api_key: { type: 'string', required: true, secret: true, env: 'ACME_API_KEY' },
  region: { type: 'string', enum: ['us', 'eu'], default: 'us', env: 'ACME_REGION' },
  ratio: { type: 'number', env: 'ACME_RATIO' },
  retries: { type: 'integer', default: 3, env: 'ACME_RETRIES' },
  sandbox: { type: 'boolean', default: false, env: 'ACME_SANDBOX' },
  note: { type: 'string', description: 'Free text shown on the cover page' },
};

const schema = settingsSchemaFromManifest(settings);

test('builds one zod field per setting, applying defaults and leaving optional fields unset', () => {
  assert.equal(Object.keys(schema.shape).sort(), ['api_key', 'note', 'ratio', 'region', 'retries', 'sandbox']);
  assert.equal(schema.parse({ api_key: 'k' }), { api_key: 'k', region: 'us', retries: 3, sandbox: false });
});

test('a required field without default must be present; others may be missing', () => {
  const missing = schema.safeParse({});
  assert.is(missing.success, false);
  assert.equal(missing.error?.issues.map((i) => i.path.join('.')), ['api_key']);
});

test('number, integer and boolean fields accept their text forms, as environment values are strings', () => {
  const parsed = schema.parse({ api_key: 'k', ratio: ' 0.5 ', retries: '7', sandbox: 'true' });
  assert.equal([parsed.ratio, parsed.retries, parsed.sandbox], [0.5, 7, true]);
  for (const [word, value] of [['false', false], ['0', false], ['no', false], ['OFF', false], ['1', true], ['yes', true], ['on', true]] as const) {
    assert.is(schema.parse({ api_key: 'k', sandbox: word }).sandbox, value, word);
  }
});

test('text that is not a value of the field type is rejected, not coerced', () => {
  for (const input of [{ ratio: 'abc' }, { ratio: '' }, { retries: '1.5' }, { retries: 2.5 }, { sandbox: 'maybe' }, { sandbox: 1 }, { api_key: 5 }]) {
    assert.is(schema.safeParse({ api_key: 'k', ...input }).success, false, JSON.stringify(input));
  }
});

test('an enum restricts a string field to its values', () => {
  assert.is(schema.parse({ api_key: 'k', region: 'eu' }).region, 'eu');
  assert.is(schema.safeParse({ api_key: 'k', region: 'asia' }).success, false);
});

test('secret fields are marked so the host masks them, and only those', () => {
  assert.ok(isSecretSchema(schema.shape.api_key as z.ZodType));
  assert.not.ok(isSecretSchema(schema.shape.region as z.ZodType));
  assert.equal(secretFields(schema), ['api_key']);
  const optionalSecret = settingsSchemaFromManifest({ token: { type: 'string', secret: true }, pin: { type: 'integer', secret: true, default: 1 } });
  assert.equal(secretFields(optionalSecret).sort(), ['pin', 'token']);
});

test('descriptions are kept on the fields', () => {
  assert.is((schema.shape.note as z.ZodType).description, 'Free text shown on the cover page');
});

test('the env map names the variable of each field that has one', () => {
  assert.equal(envMapFromManifest(settings), {
    api_key: 'ACME_API_KEY',
    region: 'ACME_REGION',
    ratio: 'ACME_RATIO',
    retries: 'ACME_RETRIES',
    sandbox: 'ACME_SANDBOX',
  });
  assert.equal(envMapFromManifest(undefined), {});
});

test('without settings the schema is an empty object', () => {
  const empty = settingsSchemaFromManifest(undefined);
  assert.equal(Object.keys(empty.shape), []);
  assert.equal(empty.parse({}), {});
});

test('the kernel resolves a manifest plugin\'s settings from environment strings, store and defaults', () => {
  const { manifest } = validateManifest(httpManifest(), HOST);
  assert.ok(manifest?.settings);
  const resolved = resolveSettings(
    settingsSchemaFromManifest(manifest!.settings),
    { sender: '+15550199' },
    envMapFromManifest(manifest!.settings),
    { ACME_API_KEY: 'sk-live' },
  );
  assert.equal(resolved.values, { api_key: 'sk-live', sender: '+15550199', region: 'us' });
  assert.equal(resolved.sources, { api_key: 'env', sender: 'store', region: 'default' });
  assert.equal(resolved.secretFields, ['api_key']);
});

test.run();
