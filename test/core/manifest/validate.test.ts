import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  MANIFEST_DIAGNOSTICS,
  ManifestSchema,
  parseManifestText,
  validateManifest,
  type ManifestDiagnostic,
  type ManifestValidation,
} from '../../../core/manifest/index.js';
import { CONTRACT_VERSIONS } from '../../../core/sdk/contracts/index.js';
import { alertManifest, entryManifest, HOST, httpManifest } from './fixtures.js';

const show = (diagnostics: ManifestDiagnostic[]) => diagnostics.map((d) => `${d.severity} ${d.code} at ${d.path}: ${d.message}`).join('\n');

/** Asserts the result is rejected with `code` at `path`, and returns that diagnostic. */
function rejected(result: ManifestValidation, code: string, path: string): ManifestDiagnostic {
  assert.is(result.manifest, undefined, 'a manifest with errors is not returned');
  const found = result.diagnostics.find((d) => d.code === code && d.path === path);
  assert.ok(found, `expected ${code} at "${path}", got:\n${show(result.diagnostics)}`);
  assert.is(found!.severity, 'error');
  assert.ok(found!.message.length > 0);
  return found!;
}

function accepted(result: ManifestValidation): void {
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  assert.equal(errors, [], show(errors));
  assert.ok(result.manifest, 'the manifest is returned');
}

function warned(result: ManifestValidation, code: string, path: string): void {
  accepted(result);
  const found = result.diagnostics.find((d) => d.code === code && d.path === path);
  assert.ok(found, `expected warning ${code} at "${path}", got:\n${show(result.diagnostics)}`);
  assert.is(found!.severity, 'warning');
}

const validate = (raw: unknown) => validateManifest(raw, HOST);

test('a code plugin manifest is accepted, with capabilities defaulting to []', () => {
  const result = validate(entryManifest());
  assert.equal(result.diagnostics, []);
  assert.is(result.manifest?.id, 'local-storage');
  assert.equal(result.manifest?.capabilities, []);
  assert.is(result.manifest?.entry, './index.js');
});

test('a declarative http fax manifest is accepted with every action, body and auth shape it uses', () => {
  const result = validate(httpManifest());
  assert.equal(result.diagnostics, []);
  assert.is(result.manifest?.http?.actions.send.method, 'POST');
  assert.equal(result.manifest?.http?.actions.send.response, { job_id: 'data.id', status: 'data.status', error: 'errors[0].message' });
  assert.is(result.manifest?.settings?.api_key?.secret, true);
});

test('every body and auth kind of an http action is accepted', () => {
  const bodies = [
    { kind: 'none' },
    { kind: 'json', template: ['{{ to }}', 1, { nested: { deeper: '{{ from }}' } }] },
    { kind: 'form', fields: { To: '{{ to }}', MediaUrl: '{{ document_url }}' } },
    { kind: 'multipart', fields: { to: '{{ to }}' }, file_field: 'file' },
  ];
  const auths = [
    { kind: 'none' },
    { kind: 'basic', username: '{{ settings.sender }}', password: '{{ secrets.api_key }}' },
    { kind: 'bearer', token: '{{ secrets.api_key }}' },
    { kind: 'api_key_header', header: 'X-Key', value: '{{ secrets.api_key }}' },
    { kind: 'api_key_query', param: 'key', value: '{{ secrets.api_key }}' },
  ];
  for (const body of bodies) {
    for (const auth of auths) {
      const manifest = httpManifest();
      manifest.http.actions.send.body = body;
      manifest.http.actions.send.auth = auth;
      accepted(validate(manifest));
    }
  }
});

test('a declarative alert-sink manifest is accepted', () => {
  const result = validate(alertManifest());
  assert.equal(result.diagnostics, []);
  assert.is(result.manifest?.alert?.url, 'https://hooks.chat.example/services/{{ secrets.token }}');
});

test('an unknown top-level key is an error at that key', () => {
  const manifest = entryManifest();
  manifest.extra = true;
  const d = rejected(validate(manifest), 'unknown-key', 'extra');
  assert.match(d.message, '"extra"');
});

test('unknown keys are errors at every level', () => {
  const manifest = httpManifest();
  manifest.provides[0].note = 'x';
  manifest.settings.sender.hidden = true;
  manifest.http.actions.send.retries = 3;
  manifest.http.actions.send.body.extra = 1;
  manifest.http.actions.status.response.id = 'x';
  const result = validate(manifest);
  rejected(result, 'unknown-key', 'provides.0.note');
  rejected(result, 'unknown-key', 'settings.sender.hidden');
  rejected(result, 'unknown-key', 'http.actions.send.retries');
  rejected(result, 'unknown-key', 'http.actions.send.body.extra');
  rejected(result, 'unknown-key', 'http.actions.status.response.id');
});

test('an id that is not lowercase letters, digits and dashes (max 64) is invalid-id', () => {
  for (const id of ['Acme', 'acme_fax', '-acme', 'acme fax', '', 'a'.repeat(65), 42]) {
    const manifest = entryManifest();
    manifest.id = id;
    rejected(validate(manifest), 'invalid-id', 'id');
  }
  const manifest = entryManifest();
  manifest.id = `0${'a'.repeat(63)}`;
  accepted(validate(manifest));
});

test('a version that is not plain semver is invalid-semver', () => {
  for (const version of ['1.0', 'v1.0.0', 'latest', '1.0.0.0', 1]) {
    const manifest = entryManifest();
    manifest.version = version;
    rejected(validate(manifest), 'invalid-semver', 'version');
  }
  const manifest = entryManifest();
  manifest.version = '2.0.0-rc.1+build.5';
  accepted(validate(manifest));
});

test('a manifestVersion other than 1 is unsupported-manifest-version', () => {
  const manifest = entryManifest();
  manifest.manifestVersion = 2;
  const d = rejected(validate(manifest), 'unsupported-manifest-version', 'manifestVersion');
  assert.match(d.message, 'got 2');
});

test('a missing required field is missing-field at its path, nested too', () => {
  const manifest = httpManifest();
  delete manifest.name;
  delete manifest.http.actions.send.url;
  delete manifest.settings.sender.type;
  const result = validate(manifest);
  rejected(result, 'missing-field', 'name');
  rejected(result, 'missing-field', 'http.actions.send.url');
  rejected(result, 'missing-field', 'settings.sender.type');
});

test('a host range that does not pin one major is host-range-unpinned', () => {
  for (const host of ['*', '>=1', '>=0.1.0', '0.1.0 - 2', '1.x || 2.x', '<=1.0.0', 'x']) {
    const manifest = entryManifest();
    manifest.host = host;
    rejected(validateManifest(manifest, { ...HOST, hostVersion: '1.0.0' }), 'host-range-unpinned', 'host');
  }
  for (const host of ['^0.1', '~0.1.0', '>=0.1.0 <0.2.0', '0.x', '>=0.1.0 <1.0.0-0']) {
    const manifest = entryManifest();
    manifest.host = host;
    accepted(validate(manifest));
  }
});

test('a host range that is not a semver range is invalid-range', () => {
  const manifest = entryManifest();
  manifest.host = 'the latest one';
  rejected(validate(manifest), 'invalid-range', 'host');
});

test('a host range the running host does not satisfy is host-range-unmet', () => {
  const manifest = entryManifest();
  manifest.host = '^2.1';
  const d = rejected(validate(manifest), 'host-range-unmet', 'host');
  assert.match(d.message, '0.1.0');
  accepted(validateManifest(manifest, { ...HOST, hostVersion: '2.3.0' }));
});

test('a contract range the host contract version does not satisfy is contract-range-unmet', () => {
  const manifest = entryManifest();
  manifest.provides = [{ kind: 'storage', contract: 'storage@^2' }];
  const d = rejected(validate(manifest), 'contract-range-unmet', 'provides.0.contract');
  assert.match(d.message, CONTRACT_VERSIONS.storage);
  accepted(validateManifest(manifest, { ...HOST, contracts: { ...HOST.contracts, storage: '2.4.0' } }));
});

test('a contract naming another kind than its entry is contract-kind-mismatch', () => {
  const manifest = entryManifest();
  manifest.provides = [{ kind: 'storage', contract: 'fax@^1' }];
  rejected(validate(manifest), 'contract-kind-mismatch', 'provides.0.contract');
});

test('a contract without the kind@range shape is invalid-contract', () => {
  for (const contract of ['storage^1', '@^1', 'storage@', '^1']) {
    const manifest = entryManifest();
    manifest.provides = [{ kind: 'storage', contract }];
    rejected(validate(manifest), 'invalid-contract', 'provides.0.contract');
  }
});

test('a provider kind the host does not know is unknown-kind, in kind and in contract', () => {
  const manifest = entryManifest();
  manifest.provides = [{ kind: 'telex', contract: 'telex@^1' }];
  const result = validate(manifest);
  rejected(result, 'unknown-kind', 'provides.0.kind');
  rejected(result, 'unknown-kind', 'provides.0.contract');
});

test('an empty provides list is an error', () => {
  const manifest = entryManifest();
  manifest.provides = [];
  rejected(validate(manifest), 'invalid-field', 'provides');
});

test('the same kind provided twice is duplicate-kind', () => {
  const manifest = entryManifest();
  manifest.provides.push({ kind: 'storage', contract: 'storage@^1.0' });
  rejected(validate(manifest), 'duplicate-kind', 'provides.1.kind');
});

test('entry together with a declarative block is entry-and-declarative', () => {
  const manifest = httpManifest();
  manifest.entry = './index.js';
  const d = rejected(validate(manifest), 'entry-and-declarative', 'entry');
  assert.match(d.message, '"http"');
});

test('neither entry nor a declarative block is entry-or-declarative-missing', () => {
  const manifest = entryManifest();
  delete manifest.entry;
  rejected(validate(manifest), 'entry-or-declarative-missing', '');
});

test('both an http and an alert block is multiple-declarative', () => {
  const manifest = httpManifest();
  manifest.alert = alertManifest().alert;
  rejected(validate(manifest), 'multiple-declarative', 'alert');
});

test('an absolute or URL entry is invalid-entry', () => {
  for (const entry of ['/opt/plugin.js', 'C:\\plugin.js', 'file:///x.js', '\\\\server\\x.js', '']) {
    const manifest = entryManifest();
    manifest.entry = entry;
    rejected(validate(manifest), 'invalid-entry', 'entry');
  }
  for (const entry of ['index.js', './dist/index.js', 'lib/..plugin.js', '../plugins/x/index.ts']) {
    const manifest = entryManifest();
    manifest.entry = entry;
    accepted(validate(manifest));
  }
});

test('an http block in a manifest that provides another kind is declarative-kind-mismatch', () => {
  const manifest = httpManifest();
  manifest.provides = [{ kind: 'storage', contract: 'storage@^1' }];
  rejected(validate(manifest), 'declarative-kind-mismatch', 'provides.0.kind');
  const alert = alertManifest();
  alert.provides.push({ kind: 'fax', contract: 'fax@^1' });
  rejected(validate(alert), 'declarative-kind-mismatch', 'provides.1.kind');
});

test('text that is not JSON is invalid-json; JSON text is validated like an object', () => {
  const broken = parseManifestText('{"manifestVersion": 1,', HOST);
  assert.is(broken.manifest, undefined);
  assert.equal(broken.diagnostics.map((d) => [d.code, d.path]), [['invalid-json', '']]);
  const good = parseManifestText(`\uFEFF${JSON.stringify(httpManifest(), null, 2)}`, HOST);
  accepted(good);
  rejected(parseManifestText('[]', HOST), 'invalid-field', '');
});

test('a malformed or unknown template placeholder is invalid-template at the template', () => {
  const cases: [string, string][] = [
    ['{{ to }', 'http.actions.send.body.template.to'],
    ['{{ nope }}', 'http.actions.send.body.template.to'],
    ['{{ settings }}', 'http.actions.send.body.template.to'],
    ['{{ settings.a.b }}', 'http.actions.send.body.template.to'],
    ['{{ to | upper }}', 'http.actions.send.body.template.to'],
    ['{{}}', 'http.actions.send.body.template.to'],
    ['to }}', 'http.actions.send.body.template.to'],
  ];
  for (const [template, path] of cases) {
    const manifest = httpManifest();
    manifest.http.actions.send.body.template.to = template;
    rejected(validate(manifest), 'invalid-template', path);
  }
  const manifest = httpManifest();
  manifest.http.actions.status.auth.value = '{{ alert.title }}';
  manifest.http.actions.send.headers['X-Trace'] = '{{ job_id';
  const result = validate(manifest);
  rejected(result, 'invalid-template', 'http.actions.status.auth.value');
  rejected(result, 'invalid-template', 'http.actions.send.headers.X-Trace');
  const alert = alertManifest();
  alert.alert.body.text = '{{ alert.nope }}';
  rejected(validate(alert), 'invalid-template', 'alert.body.text');
});

test('a placeholder reading an undeclared setting is template-unknown-setting', () => {
  const manifest = httpManifest();
  manifest.http.actions.send.query = { fmt: '{{ settings.format }}' };
  rejected(validate(manifest), 'template-unknown-setting', 'http.actions.send.query.fmt');
  // Names Object.prototype answers to are not declared settings either.
  for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
    const inherited = httpManifest();
    inherited.http.actions.send.query = { fmt: `{{ settings.${name} }}` };
    rejected(validate(inherited), 'template-unknown-setting', 'http.actions.send.query.fmt');
  }
});

test('a secrets placeholder reading a field not marked secret is template-not-secret', () => {
  const manifest = httpManifest();
  manifest.http.actions.send.auth = { kind: 'bearer', token: '{{ secrets.sender }}' };
  rejected(validate(manifest), 'template-not-secret', 'http.actions.send.auth.token');
});

test('a literal action URL host that egress does not allow is egress-host-missing', () => {
  const manifest = httpManifest();
  manifest.http.actions.status.url = 'https://status.other.example/v1/{{ provider_sid }}';
  const d = rejected(validate(manifest), 'egress-host-missing', 'http.actions.status.url');
  assert.match(d.message, 'status.other.example');
  // The wildcard entry is port-specific: the same host on the default port is not allowed.
  const port = httpManifest();
  port.http.actions.cancel.url = 'https://upload.files.acme.example/faxes/{{ provider_sid }}';
  rejected(validate(port), 'egress-host-missing', 'http.actions.cancel.url');
  const alert = alertManifest();
  alert.alert.url = 'https://elsewhere.example/hook';
  rejected(validate(alert), 'egress-host-missing', 'alert.url');
});

test('a URL template that starts with a placeholder is left to the run-time egress check', () => {
  const manifest = httpManifest();
  manifest.settings.base_url = { type: 'string', default: 'https://api.acme.example' };
  manifest.http.actions.send.url = '{{ settings.base_url }}/v1/faxes';
  assert.equal(validate(manifest).diagnostics, []);
});

test('a URL whose host is built from placeholders is accepted with egress-host-unchecked', () => {
  const manifest = httpManifest();
  manifest.http.actions.send.url = 'https://{{ settings.region }}.acme.example/v1/faxes';
  warned(validate(manifest), 'egress-host-unchecked', 'http.actions.send.url');
});

test('a declarative block without egress is egress-required', () => {
  const manifest = httpManifest();
  delete manifest.egress;
  rejected(validate(manifest), 'egress-required', 'egress');
  const alert = alertManifest();
  alert.egress = [];
  rejected(validate(alert), 'egress-required', 'egress');
});

test('an egress entry with a scheme, path or bad port is invalid-egress', () => {
  for (const entry of ['https://api.acme.example', 'api.acme.example/v1', 'api.acme.example:0', 'api.acme.example:70000', '*', '*.', 'a..b']) {
    const manifest = httpManifest();
    manifest.egress = ['api.acme.example', '*.files.acme.example:8443', entry];
    rejected(validate(manifest), 'invalid-egress', 'egress.2');
  }
  const manifest = httpManifest();
  manifest.egress.push('127.0.0.1:8080', '[::1]:9000', 'LOCALHOST');
  accepted(validate(manifest));
});

test('an action URL that is not absolute http(s), or carries credentials, is invalid-url', () => {
  for (const url of ['ftp://api.acme.example/x', '/v1/faxes', 'https://user:pw@api.acme.example/']) {
    const manifest = httpManifest();
    manifest.http.actions.send.url = url;
    rejected(validate(manifest), 'invalid-url', 'http.actions.send.url');
  }
});

test('a response path that is not dotted with [n] indexes is invalid-response-path', () => {
  const manifest = httpManifest();
  manifest.http.actions.send.response.job_id = 'data..id';
  manifest.http.actions.status.response.status = 'faxes[x]';
  const result = validate(manifest);
  rejected(result, 'invalid-response-path', 'http.actions.send.response.job_id');
  rejected(result, 'invalid-response-path', 'http.actions.status.response.status');
});

test('http shapes outside the allowed values are invalid-field at the value', () => {
  const manifest = httpManifest();
  manifest.http.actions.send.method = 'TRACE';
  manifest.http.actions.status.body = { kind: 'xml', template: '<x/>' };
  manifest.http.status_map.lost = 'LOST';
  manifest.http.actions.send.timeout_ms = 1.5;
  const result = validate(manifest);
  rejected(result, 'invalid-field', 'http.actions.send.method');
  rejected(result, 'invalid-field', 'http.actions.status.body.kind');
  rejected(result, 'invalid-field', 'http.status_map.lost');
  rejected(result, 'invalid-field', 'http.actions.send.timeout_ms');
});

test('a setting default that does not fit its type or enum is setting-default-invalid', () => {
  const manifest = httpManifest();
  manifest.settings.retries = { type: 'integer', default: 1.5 };
  manifest.settings.region.default = 'asia';
  const result = validate(manifest);
  rejected(result, 'setting-default-invalid', 'settings.retries.default');
  rejected(result, 'setting-default-invalid', 'settings.region.default');
});

test('an enum on a non-string, empty or repeating is setting-enum-invalid', () => {
  const manifest = httpManifest();
  manifest.settings.level = { type: 'number', enum: ['1'] };
  manifest.settings.mode = { type: 'string', enum: [] };
  manifest.settings.tone = { type: 'string', enum: ['a', 'a'] };
  const result = validate(manifest);
  rejected(result, 'setting-enum-invalid', 'settings.level.enum');
  rejected(result, 'setting-enum-invalid', 'settings.mode.enum');
  rejected(result, 'setting-enum-invalid', 'settings.tone.enum');
});

test('a bad setting name or env variable name is invalid-field', () => {
  const manifest = httpManifest();
  manifest.settings['1st'] = { type: 'string' };
  manifest.settings.sender.env = 'acme-sender';
  const result = validate(manifest);
  rejected(result, 'invalid-field', 'settings.1st');
  rejected(result, 'invalid-field', 'settings.sender.env');
});

test('likely mistakes in a valid manifest are warnings, and the manifest is still returned', () => {
  const manifest = httpManifest();
  manifest.maturity = 'deprecated';
  manifest.provides[0].contract = 'fax@>=1';
  manifest.settings.api_key.default = 'sk-test';
  manifest.http.actions.send.headers['X-Key'] = '{{ settings.api_key }}';
  const result = validate(manifest);
  warned(result, 'deprecated-plugin', 'maturity');
  warned(result, 'contract-range-unpinned', 'provides.0.contract');
  warned(result, 'secret-default', 'settings.api_key.default');
  warned(result, 'template-secret-via-settings', 'http.actions.send.headers.X-Key');
});

test('optional fields are checked: maturity, homepage, license, capabilities', () => {
  const manifest = entryManifest();
  manifest.maturity = 'experimental';
  manifest.homepage = 'ftp://example.com';
  manifest.license = '';
  manifest.capabilities = ['network', ''];
  const result = validate(manifest);
  rejected(result, 'invalid-field', 'maturity');
  rejected(result, 'invalid-field', 'homepage');
  rejected(result, 'invalid-field', 'license');
  rejected(result, 'invalid-field', 'capabilities.1');
});

test('several broken rules are all reported at once', () => {
  const manifest = httpManifest();
  manifest.id = 'Bad';
  manifest.extra = 1;
  manifest.entry = 'index.js';
  manifest.http.actions.send.url = 'https://evil.example/{{ nope }}';
  const codes = validate(manifest).diagnostics.map((d) => d.code);
  for (const code of ['invalid-id', 'unknown-key', 'entry-and-declarative', 'invalid-template', 'egress-host-missing']) {
    assert.ok(codes.includes(code), `${code} in ${codes.join(', ')}`);
  }
});

test('the zod schema alone enforces the cross-field rules too', () => {
  const manifest = httpManifest();
  manifest.entry = './index.js';
  const parsed = ManifestSchema.safeParse(manifest);
  assert.is(parsed.success, false);
  assert.ok(parsed.error?.issues.some((i) => i.path.join('.') === 'entry'));
  assert.is(ManifestSchema.safeParse(httpManifest()).success, true);
});

test('validation never throws, whatever it is given', () => {
  const circular: Record<string, unknown> = { ...entryManifest() };
  circular.self = circular;
  let deep: unknown = '{{ to }}';
  for (let i = 0; i < 20_000; i++) deep = { d: deep };
  const deepBody = httpManifest();
  deepBody.http.actions.send.body.template = deep;
  const throwingGetter = entryManifest();
  Object.defineProperty(throwingGetter, 'name', { enumerable: true, get: () => { throw new Error('boom'); } });
  const hostile = new Proxy({}, { get: () => { throw new Error('trap'); }, ownKeys: () => { throw new Error('trap'); } });
  const inputs: unknown[] = [
    null, undefined, 42, -0, NaN, 'manifest', true, [], [entryManifest()], {}, Object.create(null),
    10n, Symbol('x'), () => 1, new Date(), new Map(), circular, throwingGetter, hostile, deepBody,
    { ...entryManifest(), provides: [null, 42, [], { kind: {}, contract: [] }] },
    { ...httpManifest(), http: [], settings: 'x', egress: [1, null, {}] },
    { ...httpManifest(), http: { actions: { send: { url: 42, headers: [], body: { kind: 'json' } } } } },
    { ...alertManifest(), alert: { url: null, body: { f: () => 1, n: Infinity, u: undefined } } },
    { ...entryManifest(), settings: { x: { type: 'string', enum: 'abc', default: {} } } },
    { ...entryManifest(), host: { major: 1 }, version: [], id: null, manifestVersion: '1' },
    { manifestVersion: 1, __proto__: { id: 'inherited' } },
    JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}'),
  ];
  for (const input of inputs) {
    let result: ManifestValidation | undefined;
    try {
      result = validate(input);
    } catch (error) {
      assert.unreachable(`threw for ${String(typeof input)}: ${error}`);
    }
    assert.is(result!.manifest, undefined);
    assert.ok(result!.diagnostics.length > 0);
    for (const d of result!.diagnostics) {
      assert.ok(Object.hasOwn(MANIFEST_DIAGNOSTICS, d.code), `catalogued code ${d.code}`);
      assert.type(d.path, 'string');
      assert.type(d.message, 'string');
      assert.ok(d.severity === 'error' || d.severity === 'warning');
    }
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  for (const text of ['', 'null', '{', '\u0000', '1e999', '"x"', '{"a":'.repeat(5000)]) {
    assert.ok(parseManifestText(text, HOST).diagnostics.length > 0);
  }
  // Garbage host facts do not throw either; they make the ranges unmet.
  const odd = validateManifest(entryManifest(), { hostVersion: 'not a version', contracts: {} as never });
  assert.ok(odd.diagnostics.some((d) => d.code === 'host-range-unmet'));
});

test('an egress entry naming a setting is accepted; a malformed one is invalid-egress', () => {
  const good = entryManifest();
  good.egress = ['settings:baseUrl', 'api.acme.example'];
  accepted(validate(good));
  const bad = entryManifest();
  bad.egress = ['settings:'];
  rejected(validate(bad), 'invalid-egress', 'egress.0');
});

test.run();
