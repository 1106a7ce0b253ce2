import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { json, ROOT, startGateway, until, type TestGateway } from '../../../support/gateway.js';
import { writeHelper, writePluginFolder } from '../../../support/plugin-folder.js';
import { packPluginFolder, signPackageFile } from '../../../../host/cli/plugins-pack.js';
import { readTarEntries } from '../../../../host/platform/plugins/artifacts/plugin-package.js';
import { writePackageArchive } from '../../../../host/platform/plugins/artifacts/package-archive.js';
import { keyFingerprint } from '../../../../host/platform/plugins/artifacts/package-signature.js';

const work = mkdtempSync(path.join(tmpdir(), 'switchboard-packages-'));
const keyPem = (k = generateKeyPairSync('ed25519')) => ({ pem: k.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, fingerprint: keyFingerprint(k.publicKey.export({ type: 'spki', format: 'der' })) });
const trusted = keyPem();
const stranger = keyPem();
const sri = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
let gw: TestGateway;
let httpsServer: Server;
let httpsUrl: string;
const served = new Map<string, Buffer>();

/** A plugin folder at `version` answering `answer`, packed (and signed by `key` unless null). */
async function packageOf(version: string, answer: string, options: { key?: string | null; manifest?: Record<string, unknown>; helper?: string; hostVersion?: string } = {}): Promise<Buffer> {
  const dir = mkdtempSync(path.join(work, 'src-'));
  const folder = writePluginFolder(dir, 'shipped', { answer, manifest: { version, ...options.manifest } });
  if (options.helper) writeHelper(folder, answer, options.helper);
  const packed = await packPluginFolder(folder, { hostVersion: options.hostVersion ?? '0.1.0', outDir: dir });
  if (options.key !== null) await signPackageFile(packed.file, options.key ?? trusted.pem);
  return readFileSync(packed.file);
}

function upload(bytes: Buffer, integrity = sri(bytes)) {
  const form = new FormData();
  form.set('package', new Blob([new Uint8Array(bytes)]), 'shipped.tgz');
  form.set('integrity', integrity);
  return fetch(`${gw.url}/plugin-registry/install`, { method: 'POST', body: form });
}
const search = async () => gw.gateway.kernel.withProvider('retrieval', 'shipped', (r) => r.search('c', 'q', 1));
const versions = async () => json(await fetch(`${gw.url}/plugins/shipped/versions`));
const stored = () => (existsSync(path.join(gw.dataDir, 'plugin-packages', 'shipped')) ? readdirSync(path.join(gw.dataDir, 'plugin-packages', 'shipped')).sort() : []);

test.before(async () => {
  const tls = mkdtempSync(path.join(work, 'tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(tls, 'key.pem'), '-out', path.join(tls, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  httpsServer = createServer({ key: readFileSync(path.join(tls, 'key.pem')), cert: readFileSync(path.join(tls, 'cert.pem')) }, (req, res) => {
    const body = served.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body);
  });
  await new Promise<void>((r) => httpsServer.listen(0, '127.0.0.1', r));
  httpsUrl = `https://127.0.0.1:${(httpsServer.address() as { port: number }).port}`;
  gw = await startGateway({ AUDIT_LOG_ENABLED: 'true', PLUGIN_SIGNATURES: 'required', PLUGIN_TRUSTED_KEYS: trusted.fingerprint, PLUGIN_PACKAGE_CA_FILE: path.join(tls, 'cert.pem') });
});
test.after(async () => {
  await gw?.close();
  httpsServer?.close();
  rmSync(work, { recursive: true, force: true });
});

test('an uploaded, signed package with its integrity installs and starts; its version is listed with digest and signer', async () => {
  const res = await upload(await packageOf('1.0.0', 'first'));
  const body = await json(res);
  assert.is(res.status, 201, JSON.stringify(body));
  assert.equal([body.version, body.current, body.plugin.state], ['1.0.0', true, 'active']);
  assert.is((await search())[0]?.id, 'first');
  const listed = await versions();
  assert.is(listed.current, '1.0.0');
  assert.is(listed.versions[0].signer, trusted.fingerprint);
  assert.match(listed.versions[0].digest, /^sha256-/);
  assert.is(listed.versions[0].installed_by, 'local');
});

test('refusals write nothing, each with its own code: integrity, tampering, unsigned, untrusted, host range', async () => {
  const before = { files: stored(), versions: (await versions()).versions.length };
  const good = await packageOf('1.5.0', 'refused');
  const entries = await readTarEntries(good);
  entries.set('lib/answer.js', Buffer.from('export function answer() { return "evil"; }\n'));
  const tamperedFile = path.join(work, 'tampered.tgz');
  await writePackageArchive(entries, tamperedFile);
  const cases: Array<[string, Promise<Response>]> = [
    ['package_integrity_mismatch', upload(good, sri(Buffer.from('other bytes')))],
    ['package_tampered', upload(readFileSync(tamperedFile))],
    ['package_unsigned', upload(await packageOf('1.5.0', 'refused', { key: null }))],
    ['package_untrusted', upload(await packageOf('1.5.0', 'refused', { key: stranger.pem }))],
    ['package_incompatible_host', upload(await packageOf('1.5.0', 'refused', { manifest: { host: '^9.0.0' }, hostVersion: '9.0.0' }))],
  ];
  for (const [code, pending] of cases) {
    const res = await pending;
    const body = await json(res);
    assert.is(body.code, code, JSON.stringify(body));
    assert.is(res.status, 422);
  }
  assert.equal({ files: stored(), versions: (await versions()).versions.length }, before);
  assert.is((await search())[0]?.id, 'first', 'the current version still serves');
});

test('an https URL goes through the outbound guard; the second version becomes current on a new generation', async () => {
  const bytes = await packageOf('1.1.0', 'second');
  served.set('/shipped-1.1.0.tgz', bytes);
  const generation = gw.gateway.kernel.get('shipped')!.generation!;
  const form = new FormData();
  form.set('url', `${httpsUrl}/shipped-1.1.0.tgz`);
  form.set('integrity', sri(bytes));
  const res = await fetch(`${gw.url}/plugin-registry/install`, { method: 'POST', body: form });
  const body = await json(res);
  assert.is(res.status, 201, JSON.stringify(body));
  assert.is(body.plugin.version, '1.1.0');
  assert.ok(body.plugin.generation > generation);
  assert.is((await search())[0]?.id, 'second');
  assert.equal((await versions()).versions.map((v: { version: string; current: boolean }) => [v.version, v.current]), [['1.1.0', true], ['1.0.0', false]]);
});

test('rollback returns to the first version through a new generation, audited', async () => {
  const generation = gw.gateway.kernel.get('shipped')!.generation!;
  const res = await fetch(`${gw.url}/plugins/shipped/rollback`, { method: 'POST' });
  const body = await json(res);
  assert.is(res.status, 200, JSON.stringify(body));
  assert.equal([body.from, body.to, body.plugin.version], ['1.1.0', '1.0.0', '1.0.0']);
  assert.ok(body.plugin.generation > generation);
  assert.is((await search())[0]?.id, 'first');
  await gw.gateway.audit.flush();
  const events = (await gw.gateway.database.db.selectFrom('audit_events').select(['event', 'record']).execute()).filter((e) => e.event.startsWith('plugin_'));
  assert.equal(events.map((e) => e.event).filter((e) => e !== 'plugin_version_activated'), ['plugin_package_installed', 'plugin_package_installed', 'plugin_rolled_back']);
  assert.is(events.filter((e) => e.event === 'plugin_version_activated').length, 3);
});

test('a version that fails to start is not made current: the previous one keeps serving', async () => {
  const broken = await packageOf('2.0.0', 'broken', { helper: 'throw new Error("cannot import");\nexport function answer() {}\n' });
  const res = await upload(broken);
  const body = await json(res);
  assert.is(body.code, 'plugin_version_failed', JSON.stringify(body));
  assert.match(body.detail, /cannot import/);
  assert.is((await versions()).current, '1.0.0');
  await until(async () => gw.gateway.kernel.get('shipped')?.version === '1.0.0' && gw.gateway.kernel.get('shipped')?.state === 'active', 10_000);
  assert.is((await search())[0]?.id, 'first');
});

test('pin: later installs are kept, not started; PUT version null unpins', async () => {
  const pin = await fetch(`${gw.url}/plugins/shipped/pin`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ version: '1.0.0' }) });
  assert.equal(await json(pin), { current: '1.0.0', pinned: true });
  const res = await upload(await packageOf('1.2.0', 'third'));
  const body = await json(res);
  assert.is(res.status, 201);
  assert.is(body.current, false);
  assert.match(body.warnings.join(' '), /pinned to 1\.0\.0/);
  assert.is((await search())[0]?.id, 'first');
  const unpin = await fetch(`${gw.url}/plugins/shipped/pin`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ version: null }) });
  assert.equal(await json(unpin), { current: '1.0.0', pinned: false });
});

test('a rollback asked while this instance applies a version another instance made current waits for it, not refused', async () => {
  // Another instance of a cluster made 1.2.0 current; this one follows while a caller rolls back.
  await gw.gateway.database.db.updateTable('plugin_current').set({ version: '1.2.0' }).where('plugin_id', '=', 'shipped').execute();
  const following = gw.gateway.platform.pluginVersions.follow();
  const back = await fetch(`${gw.url}/plugins/shipped/rollback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ version: '1.0.0' }) });
  await following;
  const body = await json(back);
  assert.is(back.status, 200, JSON.stringify(body));
  assert.equal([body.from, body.to], ['1.2.0', '1.0.0']);
  assert.is((await versions()).current, '1.0.0');
  assert.is((await search())[0]?.id, 'first');
});

test('the CLI installs a package, lists the versions and rolls back through the gateway', async () => {
  const dir = mkdtempSync(path.join(work, 'cli-'));
  const bytes = await packageOf('1.3.0', 'fourth');
  const file = path.join(dir, 'shipped-1.3.0.tgz');
  writeFileSync(file, bytes);
  // Not spawnSync: the gateway answering the CLI runs in this process.
  const cli = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [path.join(ROOT, 'host/bin/switchboard.mjs'), 'plugins', ...args], { cwd: dir, env: { ...process.env, SWITCHBOARD_URL: gw.url, SWITCHBOARD_API_KEY: '' } }, (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  const installed = await cli('install', file, '--integrity', sri(bytes));
  assert.is(installed.status, 0, installed.stderr);
  assert.match(installed.stdout, /shipped@1\.3\.0: current, active/);
  const listed = await cli('versions', 'shipped', '--json');
  assert.is(JSON.parse(listed.stdout).current, '1.3.0');
  const back = await cli('rollback', 'shipped', '--to', '1.1.0');
  assert.is(back.status, 0, back.stderr);
  assert.match(back.stdout, /shipped: 1\.3\.0 -> 1\.1\.0/);
  assert.is((await search())[0]?.id, 'second');
});

test.run();
