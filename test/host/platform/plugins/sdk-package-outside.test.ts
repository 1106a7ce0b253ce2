import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import path from 'node:path';
import { json, ROOT, startGateway, tempDir, until, type TestGateway } from '../../../support/gateway.js';
import { newcomerShellEnv } from '../../../support/network-env.js';
import { keyFingerprint } from '../../../../host/platform/plugins/artifacts/package-signature.js';

// docs/sdk-guide.md, "Write a plugin outside this repository", run as written in a temporary
// folder: the SDK tarball, a generated plugin installed, tested and linted against it alone,
// packed and signed; then the package goes into a running gateway by upload and serves, a second
// version goes in by https URL, and a rollback brings the first back.
const work = tempDir('switchboard-sdk-outside-');
const folder = path.join(work, 'acme-store');
const hostVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const tarball = path.join(work, `switchboard-sdk-${hostVersion}.tgz`);
let block = '';
let ran = { code: null as number | null, out: '' };
let gw: TestGateway | undefined;
// A loopback https server the second version is installed from (its certificate made here).
const served = new Map<string, Buffer>();
let httpsServer: Server | undefined;
let httpsUrl = '';
let caFile = '';

function guideBlock(): string {
  const guide = readFileSync(path.join(ROOT, 'docs/sdk-guide.md'), 'utf8');
  const found = /```sh title="shell, outside this repository"\n([\s\S]*?)\n```/.exec(guide);
  assert.ok(found, 'the guide has the "shell, outside this repository" block');
  return found![1]!;
}

/** Runs shell lines with bash -e in the temp folder; `switchboard` is this checkout's built CLI. */
function shell(lines: string) {
  const r = spawnSync('bash', ['-e', '-c', `switchboard() { node ${JSON.stringify(path.join(ROOT, 'dist/host/cli/run.js'))} "$@"; }\n${lines}`], {
    cwd: work,
    encoding: 'utf8',
    timeout: 120_000,
    // No audit: test speed only; the commands are the guide's.
    env: newcomerShellEnv(work, { npm_config_audit: 'false' }),
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const sri = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

test.before(async () => {
  const tls = path.join(work, 'tls');
  mkdirSync(tls);
  caFile = path.join(tls, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(tls, 'key.pem'), '-out', caFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  httpsServer = createServer({ key: readFileSync(path.join(tls, 'key.pem')), cert: readFileSync(caFile) }, (req, res) => {
    const body = served.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body);
  });
  await new Promise<void>((r) => httpsServer!.listen(0, '127.0.0.1', r));
  httpsUrl = `https://127.0.0.1:${(httpsServer.address() as { port: number }).port}`;
  block = guideBlock();
  // Every line but the last (the upload, done below against this test's gateway).
  const lines = block.split('\n');
  assert.match(lines.at(-1)!, /^curl -F package=@acme-store-0\.1\.0\.tgz -F integrity=sha512-\.\.\. localhost:8080\/plugin-registry\/install$/);
  ran = shell(lines.slice(0, -1).join('\n'));
});
test.after(async () => {
  await gw?.close();
  httpsServer?.close();
  rmSync(work, { recursive: true, force: true });
});

test('the folder is outside the repository, and every command of the block passes', () => {
  assert.not.ok(realpathSync(work).startsWith(realpathSync(ROOT) + path.sep));
  assert.is(ran.code, 0, ran.out);
});

test('sdk pack writes the SDK tarball of the host\'s version and prints its path and integrity, the integrity npm installed it with', () => {
  assert.ok(statSync(tarball).isFile());
  assert.match(ran.out, new RegExp(`^${tarball.replaceAll('.', '\\.')}\\n@switchboard/sdk@${hostVersion.replaceAll('.', '\\.')}\\nintegrity (sha512-\\S+)$`, 'm'));
  const printed = /^integrity (sha512-\S+)$/m.exec(ran.out)![1];
  assert.is(printed, sri(readFileSync(tarball)));
  const lock = JSON.parse(readFileSync(path.join(folder, 'package-lock.json'), 'utf8'));
  assert.equal([lock.packages['node_modules/@switchboard/sdk'].resolved, lock.packages['node_modules/@switchboard/sdk'].integrity], [`file:../switchboard-sdk-${hostVersion}.tgz`, printed]);
});

test('plugins new writes a portable folder: the SDK tarball by a relative path, a dev dependency; no absolute path in any file', () => {
  const pkg = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
  assert.is(pkg.devDependencies['@switchboard/sdk'], `file:../switchboard-sdk-${hostVersion}.tgz`);
  assert.is(pkg.dependencies, undefined);
  for (const file of ['manifest.json', 'package.json', 'tsconfig.json', 'README.md', 'src/index.ts', 'src/plugin.test.ts']) {
    const text = readFileSync(path.join(folder, file), 'utf8');
    assert.not.ok(text.includes(ROOT) || text.includes(work) || text.includes(realpathSync(work)), `${file} names no absolute path`);
  }
  // The SDK package is installed, the host is not.
  assert.is(JSON.parse(readFileSync(path.join(folder, 'node_modules/@switchboard/sdk/package.json'), 'utf8')).version, hostVersion);
  assert.not.ok(existsSync(path.join(folder, 'node_modules/switchboard')));
  assert.not.ok(realpathSync(path.join(folder, 'node_modules/@switchboard/sdk')).startsWith(realpathSync(ROOT) + path.sep), 'a copy from the tarball, not a link into the checkout');
});

test('npm test runs the storage conformance suite with the SDK package\'s kit; npm run lint checks types and the manifest', () => {
  assert.match(ran.out, /^ok \d+ - storage conformance: keys that escape the root are refused$/m);
  assert.match(ran.out, /^# pass [1-9]\d*\n# fail 0$/m);
  assert.match(ran.out, /^manifest\.json: ok \(acme-store@0\.1\.0\)$/m);
});

test('npm test fails when the provider breaks its contract', () => {
  const broken = shell(`cd acme-store && sed -i 's/return objects.delete(key);/return true;/' src/index.ts && npm test`);
  assert.is(broken.code, 1, broken.out);
  assert.match(broken.out, /^not ok \d+ - storage conformance/m);
  assert.is(shell(`cd acme-store && sed -i 's/return true;/return objects.delete(key);/' src/index.ts && npm run build`).code, 0);
});

test('the signed package installs into a running gateway by upload (signatures required) and serves', async () => {
  const pkg = path.join(work, 'acme-store-0.1.0.tgz');
  const files = readdirSync(work).sort();
  assert.ok(files.includes('acme-store-0.1.0.tgz') && files.includes('signing-key.pem'), files.join(', '));
  const signer = keyFingerprint(createPublicKey(createPrivateKey(readFileSync(path.join(work, 'signing-key.pem')))).export({ type: 'spki', format: 'der' }));
  assert.match(ran.out, new RegExp(`^signer ${signer.replace(/[+/]/g, '\\$&')}$`, 'm'));
  gw = await startGateway({ PLUGIN_SIGNATURES: 'required', PLUGIN_TRUSTED_KEYS: signer, PLUGIN_PACKAGE_CA_FILE: caFile, AUDIT_LOG_ENABLED: 'true' });
  const bytes = readFileSync(pkg);
  const form = new FormData();
  form.set('package', new Blob([new Uint8Array(bytes)]), 'acme-store-0.1.0.tgz');
  form.set('integrity', /^integrity (sha512-\S+)$/m.exec(ran.out.slice(ran.out.lastIndexOf('signer ')))![1]!);
  const res = await fetch(`${gw.url}/plugin-registry/install`, { method: 'POST', body: form });
  const body = await json(res);
  assert.is(res.status, 201, JSON.stringify(body));
  assert.equal([body.version, body.current, body.plugin.state], ['0.1.0', true, 'active']);
  const gateway = gw;
  await until(() => gateway.gateway.kernel.isActive('storage', 'acme-store'), 15_000);
  // Served by the plugin's own code, its `@switchboard/sdk` resolved to the running host.
  const answer = await gw.gateway.kernel.withProvider('storage', 'acme-store', async (storage) => {
    await storage.put('notes/a.txt', Buffer.from('hello'));
    return { read: (await storage.get('notes/a.txt')).toString(), listed: (await storage.list('notes/')).map((e) => e.key) };
  });
  assert.equal(answer, { read: 'hello', listed: ['notes/a.txt'] });
  const versions = await json(await fetch(`${gw.url}/plugins/acme-store/versions`));
  assert.is(versions.versions[0].signer, signer);
});

test('a second version goes in by https URL (a wrong integrity is refused first, writing nothing); a rollback brings the first back; each a new generation, audited', async () => {
  assert.ok(gw, 'the gateway of the upload test runs');
  const bumped = shell(
    [
      'cd acme-store',
      'npm pkg set version=0.2.0',
      `node -e "const fs=require('fs');const m=JSON.parse(fs.readFileSync('manifest.json','utf8'));m.version='0.2.0';fs.writeFileSync('manifest.json',JSON.stringify(m,null,2)+'\\n')"`,
      'npm run build',
      'cd ..',
      'switchboard plugins pack acme-store',
      'switchboard plugins sign acme-store-0.2.0.tgz --key signing-key.pem',
    ].join('\n'),
  );
  assert.is(bumped.code, 0, bumped.out);
  const bytes = readFileSync(path.join(work, 'acme-store-0.2.0.tgz'));
  served.set('/acme-store-0.2.0.tgz', bytes);
  const byUrl = (integrity: string) => {
    const form = new FormData();
    form.set('url', `${httpsUrl}/acme-store-0.2.0.tgz`);
    form.set('integrity', integrity);
    return fetch(`${gw!.url}/plugin-registry/install`, { method: 'POST', body: form });
  };
  const listed = async () => (await json(await fetch(`${gw!.url}/plugins/acme-store/versions`))).versions.map((v: { version: string; current: boolean }) => [v.version, v.current]);
  const first = gw!.gateway.kernel.get('acme-store')!.generation!;

  const wrong = await byUrl(sri(Buffer.from('some other bytes')));
  assert.is((await json(wrong)).code, 'package_integrity_mismatch');
  assert.equal(await listed(), [['0.1.0', true]]);

  const res = await byUrl(sri(bytes));
  const installed = await json(res);
  assert.is(res.status, 201, JSON.stringify(installed));
  assert.equal([installed.version, installed.plugin.version], ['0.2.0', '0.2.0']);
  assert.ok(installed.plugin.generation > first, 'the second version runs on a new generation');
  assert.equal(await listed(), [['0.2.0', true], ['0.1.0', false]]);

  const back = await fetch(`${gw!.url}/plugins/acme-store/rollback`, { method: 'POST' });
  const rolled = await json(back);
  assert.is(back.status, 200, JSON.stringify(rolled));
  assert.equal([rolled.from, rolled.to, rolled.plugin.version], ['0.2.0', '0.1.0', '0.1.0']);
  assert.ok(rolled.plugin.generation > installed.plugin.generation, 'the rollback runs on a new generation');
  assert.equal(await listed(), [['0.2.0', false], ['0.1.0', true]]);

  await gw!.gateway.audit.flush();
  const events = (await gw!.gateway.database.db.selectFrom('audit_events').select(['event']).execute()).map((e) => e.event).filter((e) => e.startsWith('plugin_') && e !== 'plugin_version_activated');
  assert.equal(events, ['plugin_package_installed', 'plugin_package_installed', 'plugin_rolled_back']);
});

test('sdk pack is reproducible: a second pack has the same bytes', () => {
  const again = shell('mkdir -p again && switchboard sdk pack --out again');
  assert.is(again.code, 0, again.out);
  assert.is(sri(readFileSync(path.join(work, 'again', path.basename(tarball)))), sri(readFileSync(tarball)));
});

test.run();
