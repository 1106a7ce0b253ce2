import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { HttpApi } from '../../../../host/platform/http/api.js';
import { errorHandler, notFoundHandler } from '../../../../host/platform/http/error-handler.js';
import { registerRegistryRoutes } from '../../../../host/platform/plugins/registry-routes.js';
import { RegistryCatalogue, catalogueVersion } from '../../../../host/platform/plugins/registry-catalogue.js';
import { registerPluginRoutes } from '../../../../host/platform/plugins/plugin-routes.js';
import { hostVersion } from '../../../../host/platform/runtime/paths.js';
import { ROOT, json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../support/gateway.js';
import { closeServer, listen } from '../../../fakes/hosted-fax-fake-kit.js';

let gw: TestGateway;
let manifestsDir: string;
const cleanups: Array<() => Promise<void> | void> = [];

test.before(async () => {
  manifestsDir = tempDir('switchboard-manifests-');
  gw = await startGateway({ MANIFESTS_DIR: manifestsDir });
});
test.after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await gw.close();
  removeDir(manifestsDir);
});

const call = async (method: string, p: string, body?: unknown, base = gw.url) => {
  const res = await fetch(base + p, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await json(res) };
};
const listed = async (id: string) => ((await call('GET', '/plugins')).body.plugins as Array<{ id: string }>).find((p) => p.id === id);

test('the registry lists the catalogue entries as not installed', async () => {
  const { status, body } = await call('GET', '/plugin-registry');
  assert.is(status, 200);
  const byId = new Map((body.plugins as Array<{ id: string; installed: boolean; builtin: boolean; kinds: string[] }>).map((p) => [p.id, p]));
  for (const id of ['faxpipe-json', 'docufax-multipart', 'formfax', 'keyfax']) {
    assert.is(byId.get(id)?.installed, false, id);
    assert.is(byId.get(id)?.builtin, false, id);
    assert.equal(byId.get(id)?.kinds, ['fax']);
  }
  assert.is(byId.get('storage-local')?.builtin, true);
});

test('install copies the manifest into the manifests directory and answers 201 with the loaded plugin', async () => {
  const { status, body } = await call('POST', '/plugin-registry/faxpipe-json/install');
  assert.is(status, 201, JSON.stringify(body));
  assert.is(body.id, 'faxpipe-json');
  assert.equal(body.kinds, ['fax']);
  assert.is(body.declarative, true);
  const file = path.join(manifestsDir, 'faxpipe-json.json');
  assert.is(readFileSync(file, 'utf8'), readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8'));
  assert.equal(readdirSync(manifestsDir), ['faxpipe-json.json'], 'no temp file is left behind');
  assert.is(statSync(file).mode & 0o777, 0o600, 'an installed manifest is private to the gateway user');
  assert.ok(await listed('faxpipe-json'), '/plugins lists it');
  const registry = await call('GET', '/plugin-registry');
  assert.is(registry.body.plugins.find((p: { id: string }) => p.id === 'faxpipe-json').installed, true);
});

test('installing it again is 409', async () => {
  const { status, body } = await call('POST', '/plugin-registry/faxpipe-json/install');
  assert.is(status, 409);
  assert.match(body.detail, /already installed/);
});

test('an unknown id is 404, a built-in entry is 409, and nothing is written', async () => {
  assert.is((await call('POST', '/plugin-registry/no-such-fax/install')).status, 404);
  assert.is((await call('POST', '/plugin-registry/storage-local/install')).status, 409);
  assert.is((await call('DELETE', '/plugin-registry/storage-local')).status, 409);
  assert.equal(readdirSync(manifestsDir), ['faxpipe-json.json']);
});

test('a path-traversal id is refused and writes nothing anywhere', async () => {
  for (const id of ['..%2f..%2fetc', '..%2F..%2Fetc%2Fpasswd', '..%5c..%5cetc', 'FaxPipe']) {
    const install = await call('POST', `/plugin-registry/${id}/install`);
    assert.is(install.status, 400, `${id}: ${JSON.stringify(install.body)}`);
    const remove = await call('DELETE', `/plugin-registry/${id}`);
    assert.is(remove.status, 400, id);
  }
  // URL parsing folds "%2e%2e" into "..", so this one never reaches the route at all.
  assert.is((await call('POST', '/plugin-registry/%2e%2e/install')).status, 404);
  assert.equal(readdirSync(manifestsDir), ['faxpipe-json.json']);
  assert.not.ok(existsSync(path.join(path.dirname(manifestsDir), 'etc.json')));
});

test('uninstall removes the manifest and the plugin is gone from /plugins; again is 404', async () => {
  const { status, body } = await call('DELETE', '/plugin-registry/faxpipe-json');
  assert.is(status, 200);
  assert.equal(body, { id: 'faxpipe-json', removed: true });
  assert.not.ok(existsSync(path.join(manifestsDir, 'faxpipe-json.json')));
  assert.is(await listed('faxpipe-json'), undefined);
  assert.is((await call('DELETE', '/plugin-registry/faxpipe-json')).status, 404);
  assert.is((await call('DELETE', '/plugin-registry/keyfax')).status, 404, 'never installed');
});

test('every catalogue manifest installs and uninstalls', async () => {
  for (const id of ['docufax-multipart', 'formfax', 'keyfax']) {
    const installed = await call('POST', `/plugin-registry/${id}/install`);
    assert.is(installed.status, 201, `${id}: ${JSON.stringify(installed.body)}`);
    assert.equal(installed.body.diagnostics, [], id);
    assert.is((await call('DELETE', `/plugin-registry/${id}`)).status, 200, id);
  }
  assert.equal(readdirSync(manifestsDir), []);
});

/** A loopback server that counts what reaches it: a dry run must send nothing. */
async function countingServer(): Promise<{ origin: string; hits: () => number; server: Server }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"x"}');
  });
  const origin = await listen(server);
  cleanups.push(() => closeServer(server));
  return { origin, hits: () => hits, server };
}

const SECRET_KEY = 'sk_live_Zq9"&=%\u00e9';
const SECRET_PASS = 'p@ss:w0rd/with?chars';

test('validate with dry_run renders send, status and cancel with every secret masked and sends nothing', async () => {
  const fake = await countingServer();
  const manifest = {
    manifestVersion: 1,
    id: 'dry-fax',
    name: 'Dry fax',
    version: '1.0.0',
    description: 'dry run subject',
    author: 'tests',
    host: '^0.1.0',
    provides: [{ kind: 'fax', contract: 'fax@^1' }],
    settings: {
      base_url: { type: 'string', required: true },
      account: { type: 'string', required: true },
      api_key: { type: 'string', required: true, secret: true },
      password: { type: 'string', required: true, secret: true },
    },
    egress: ['127.0.0.1'],
    http: {
      actions: {
        send: {
          method: 'POST',
          url: '{{ settings.base_url }}/accounts/{{ settings.account }}/faxes',
          query: { key: '{{ secrets.api_key }}' },
          headers: { 'X-Key': '{{ secrets.api_key }}' },
          auth: { kind: 'basic', username: '{{ settings.account }}', password: '{{ secrets.password }}' },
          body: { kind: 'json', template: { to: '{{ to }}', media: '{{ document_url }}', signature: 'key={{ secrets.api_key }}' } },
        },
        status: { method: 'GET', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}', auth: { kind: 'bearer', token: '{{ secrets.api_key }}' } },
        cancel: {
          method: 'POST',
          url: '{{ settings.base_url }}/faxes/{{ provider_sid }}/cancel',
          body: { kind: 'form', fields: { key: '{{ secrets.api_key }}', reason: 'user' } },
        },
      },
      status_map: {},
    },
  };
  const { status, body } = await call('POST', '/plugins/validate', {
    manifest,
    dry_run: true,
    sample: { to: '+15550001111', settings: { base_url: fake.origin, account: 'acct-1', api_key: SECRET_KEY, password: SECRET_PASS } },
  });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.valid, true);
  const text = JSON.stringify(body);
  for (const secret of [SECRET_KEY, SECRET_PASS, encodeURIComponent(SECRET_KEY), Buffer.from(`acct-1:${SECRET_PASS}`).toString('base64')]) {
    assert.not.ok(text.includes(secret), `a secret form leaked: ${secret}`);
  }
  const [send, statusReq, cancel] = body.requests;
  assert.equal(body.requests.map((r: { action: string }) => r.action), ['send', 'status', 'cancel']);
  assert.is(send.method, 'POST');
  assert.is(send.url, `${fake.origin}/accounts/acct-1/faxes?key=***`);
  assert.is(send.headers['X-Key'], '***');
  assert.is(send.headers.Authorization, 'Basic ***');
  assert.is(send.headers['Content-Type'], 'application/json');
  assert.equal(JSON.parse(send.body), {
    to: '+15550001111',
    media: `${gw.env.PUBLIC_API_URL}/fax/job-sample-0001/pdf?token=sample-token`,
    signature: 'key=***',
  });
  assert.is(send.egress_allowed, true);
  // The test gateway's PUBLIC_API_URL is loopback: a provider could never fetch that document URL.
  assert.match(gw.env.PUBLIC_API_URL!, /127\.0\.0\.1|localhost/);
  assert.equal(body.warnings, [`the send request hands the provider a URL on ${gw.env.PUBLIC_API_URL}, which it cannot reach from outside: set PUBLIC_API_URL to the gateway's public address`]);
  assert.is(statusReq.method, 'GET');
  assert.is(statusReq.url, `${fake.origin}/faxes/provider-sid-sample-0001`);
  assert.is(statusReq.headers.Authorization, 'Bearer ***');
  assert.is(statusReq.body, null);
  assert.is(cancel.body, 'key=***&reason=user');
  assert.match(cancel.headers['Content-Type'], /^application\/x-www-form-urlencoded/);
  await new Promise((r) => setTimeout(r, 100));
  assert.is(fake.hits(), 0, 'the dry run sent nothing');
});

test('validate with dry_run of a registry manifest shows the multipart body with the file part described', async () => {
  const manifest = readFileSync(path.join(ROOT, 'registry/manifests/docufax-multipart.json'), 'utf8');
  const { body } = await call('POST', '/plugins/validate', { manifest, dry_run: true, sample: { settings: { project_id: 'p 1/2' } } });
  assert.is(body.valid, true, JSON.stringify(body.diagnostics));
  const [send] = body.requests;
  assert.is(send.url, 'https://fax.docufax.example/v3/projects/p%201%2F2/faxes');
  assert.is(body.warnings, undefined, 'an uploaded document names no URL of the gateway');
  assert.is(send.headers.Authorization, 'Basic ***');
  assert.match(send.headers['Content-Type'], /^multipart\/form-data; boundary=/);
  assert.match(send.body, /name="to"\r\n\r\n\+15551234567\r\n/);
  assert.match(send.body, /name="file"; filename="document.pdf"\r\nContent-Type: application\/pdf\r\n\r\n<the PDF of the fax>/);
  assert.is(send.egress_allowed, true);
});

test('validate reports diagnostics for an invalid manifest, bad JSON text and an unsupported placeholder', async () => {
  const invalid = await call('POST', '/plugins/validate', { manifest: { manifestVersion: 1, id: 'Bad Id' }, dry_run: true });
  assert.is(invalid.status, 200);
  assert.is(invalid.body.valid, false);
  assert.is(invalid.body.requests, undefined);
  assert.ok(invalid.body.diagnostics.some((d: { code: string }) => d.code === 'invalid-id'));
  const text = await call('POST', '/plugins/validate', { manifest: '{"manifestVersion": 1,' });
  assert.equal(text.body.diagnostics.map((d: { code: string }) => d.code), ['invalid-json']);
  const registry = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8'));
  registry.http.actions.send.body.template.callback = '{{ callback_url }}';
  const unsupported = await call('POST', '/plugins/validate', { manifest: registry });
  assert.is(unsupported.body.valid, false);
  assert.equal(unsupported.body.diagnostics.map((d: { code: string }) => d.code), ['template-unsupported']);
  const malformed = await call('POST', '/plugins/validate', { manifest: 42 });
  assert.is(malformed.status, 400);
});

/** A second API over the same kernel with a catalogue of broken entries. */
async function brokenCatalogue(): Promise<string> {
  const dir = tempDir('switchboard-registry-');
  mkdirSync(path.join(dir, 'manifests'));
  const good = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/keyfax.json'), 'utf8'));
  writeFileSync(path.join(dir, 'manifests/invalid.json'), JSON.stringify({ ...good, id: 'invalid', egress: [] }));
  writeFileSync(path.join(dir, 'manifests/other-id.json'), JSON.stringify({ ...good, id: 'someone-else' }));
  // A version for a host to come, and one whose manifest changed after the catalogue listed it.
  const future = JSON.stringify({ ...good, id: 'future', host: '^9.0.0' });
  writeFileSync(path.join(dir, 'manifests/future.json'), future);
  writeFileSync(path.join(dir, 'manifests/changed.json'), JSON.stringify({ ...good, id: 'changed', name: 'changed after listing' }));
  const listedAs = (text: string) => [catalogueVersion(text)];
  const entry = (id: string, manifest: string, versions: unknown[] = []) => ({ id, name: id, description: '', version: '1.0.0', kinds: ['fax'], builtin: false, manifest, tags: [], versions });
  writeFileSync(
    path.join(dir, 'index.json'),
    JSON.stringify({
      version: 1,
      plugins: [
        entry('invalid', 'manifests/invalid.json'),
        entry('other-id', 'manifests/other-id.json'),
        entry('escape', '../../etc/escape.json'),
        entry('future', 'manifests/future.json', listedAs(future)),
        entry('changed', 'manifests/changed.json', listedAs(JSON.stringify({ ...good, id: 'changed' }))),
      ],
    }),
  );
  const api = new HttpApi();
  registerPluginRoutes(api, { kernel: gw.gateway.kernel, catalogue: new RegistryCatalogue(dir), configStorePath: path.join(dir, 'plugins.json'), hostVersion: hostVersion(ROOT) });
  registerRegistryRoutes(api, {
    kernel: gw.gateway.kernel,
    catalogue: new RegistryCatalogue(dir),
    manifestsDir,
    hostVersion: hostVersion(ROOT),
    publicBaseUrl: () => 'http://127.0.0.1',
  });
  const app = express();
  app.use(api.router);
  app.use(notFoundHandler);
  app.use(errorHandler());
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanups.push(() => closeServer(server), () => removeDir(dir));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('validate refuses an entry that climbs out of the manifest folder, as the loader does', async () => {
  const manifest = { manifestVersion: 1, id: 'escaper', name: 'escaper', version: '1.0.0', description: 'd', author: 'a', host: '^0.1.0', provides: [{ kind: 'fax', contract: 'fax@^1' }], capabilities: [], entry: '../../../../etc/passwd' };
  const { status, body } = await call('POST', '/plugins/validate', { manifest });
  assert.is(status, 200);
  assert.is(body.valid, false);
  assert.equal(body.diagnostics.map((d: { code: string }) => d.code), ['entry-outside-folder']);
  assert.is((await call('POST', '/plugins/validate', { manifest: { ...manifest, entry: 'dist/./lib/../index.js' } })).body.valid, true, 'a path that stays inside is fine');
  // The loader, for a manifest dropped into a folder, refuses it with the same diagnostic.
  writeFileSync(path.join(gw.pluginsDir, 'escaper.json'), JSON.stringify(manifest));
  await until(async () => (await call('GET', '/plugins')).body.plugins.some((p: { id: string }) => p.id === 'escaper'));
  const view = (await call('GET', '/plugins')).body.plugins.find((p: { id: string }) => p.id === 'escaper');
  assert.is(view.state, 'rejected');
  assert.ok(view.diagnostics.some((d: { code: string }) => d.code === 'entry-outside-folder'), JSON.stringify(view));
});

test('an invalid catalogue manifest is 422 with diagnostics, a mismatched id 422, an escaping path refused; nothing written', async () => {
  const base = await brokenCatalogue();
  const invalid = await call('POST', '/plugin-registry/invalid/install', undefined, base);
  assert.is(invalid.status, 422);
  assert.ok(invalid.body.diagnostics.some((d: { code: string }) => d.code === 'egress-required'));
  const other = await call('POST', '/plugin-registry/other-id/install', undefined, base);
  assert.is(other.status, 422);
  assert.match(other.body.detail, /someone-else/);
  const escape = await call('POST', '/plugin-registry/escape/install', undefined, base);
  assert.is(escape.status, 409);
  assert.match(escape.body.detail, /outside the registry/);
  assert.equal(readdirSync(manifestsDir), []);
});

test('the catalogue lists each version with its integrity and host range, marks one for another host and refuses to install it; a changed manifest is refused', async () => {
  const base = await brokenCatalogue();
  const listed = (await call('GET', '/plugin-registry', undefined, base)).body.plugins as Array<{ id: string; versions: Array<{ version: string; integrity: string; host: string | null; compatible: boolean; incompatible?: string }> }>;
  const future = listed.find((p) => p.id === 'future')!.versions;
  assert.is(future.length, 1);
  assert.equal([future[0]!.version, future[0]!.host, future[0]!.compatible], ['1.0.0', '^9.0.0', false]);
  assert.match(future[0]!.integrity, /^sha256-/);
  assert.match(future[0]!.incompatible!, /needs host \^9\.0\.0; this host is /);
  assert.is(listed.find((p) => p.id === 'changed')!.versions[0]!.compatible, true);
  const refused = await call('POST', '/plugin-registry/future/install', undefined, base);
  assert.is(refused.status, 422, JSON.stringify(refused.body));
  assert.is(refused.body.code, 'package_incompatible_host');
  const changed = await call('POST', '/plugin-registry/changed/install', undefined, base);
  assert.is(changed.status, 409, JSON.stringify(changed.body));
  assert.match(changed.body.detail, /does not match the integrity/);
  assert.equal(readdirSync(manifestsDir), []);
  // The real catalogue: every entry lists its manifest's version, offered to this host.
  const real = (await call('GET', '/plugin-registry')).body.plugins as typeof listed;
  for (const p of real) assert.equal(p.versions.map((v) => [v.compatible, /^sha256-/.test(v.integrity)]), [[true, true]], p.id);
});

test.run();
