import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../support/gateway.js';
import { writePluginFolder } from '../../support/plugin-folder.js';
import { readTarEntries } from '../../../host/platform/plugins/artifacts/plugin-package.js';
import { writePackageArchive } from '../../../host/platform/plugins/artifacts/package-archive.js';

const cli = path.join(ROOT, 'host/bin/switchboard.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-pack-'));
const keyFile = path.join(dir, 'key.pem');
const { privateKey } = generateKeyPairSync('ed25519');
writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, PLUGIN_TRUSTED_KEYS: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const line = (out: string, word: string) => out.split('\n').find((l) => l.startsWith(`${word} `))?.slice(word.length + 1);

test('pack writes <id>-<version>.tgz with the manifest, the code and a SHA-256 per file; sign and verify name the digest and signer', () => {
  writePluginFolder(dir, 'packed');
  writeFileSync(path.join(dir, 'packed', 'package.json'), JSON.stringify({ name: 'packed', type: 'module', devDependencies: { switchboard: 'file:../switchboard-sdk.tgz' } }));
  mkdirSync(path.join(dir, 'packed', 'node_modules', 'left-out'), { recursive: true });
  const packed = run('plugins', 'pack', 'packed');
  assert.is(packed.code, 0, packed.err);
  const file = path.join(dir, 'packed-1.0.0.tgz');
  assert.ok(packed.out.startsWith(`${file}\n`));
  const digest = line(packed.out, 'digest');
  assert.match(digest ?? '', /^sha256-[A-Za-z0-9+/]+=*$/);

  const signed = run('plugins', 'sign', file, '--key', keyFile);
  assert.is(signed.code, 0, signed.err);
  assert.is(line(signed.out, 'digest'), digest, 'signing does not change the digest');
  const signer = line(signed.out, 'signer');
  assert.match(signer ?? '', /^SHA256:/);

  const verified = run('plugins', 'verify', file, '--json');
  assert.is(verified.code, 0, verified.err);
  const result = JSON.parse(verified.out);
  assert.equal([result.id, result.version, result.digest, result.signer], ['packed', '1.0.0', digest, signer]);
  assert.is(run('plugins', 'verify', file, '--trusted-keys', signer!).code, 0);
  const untrusted = run('plugins', 'verify', file, '--trusted-keys', 'SHA256:someoneelse');
  assert.is(untrusted.code, 1);
  assert.match(untrusted.out, /NOT trusted/);
});

test('the package lists every file with its SHA-256 and holds nothing else (no node_modules)', async () => {
  const entries = await readTarEntries(readFileSync(path.join(dir, 'packed-1.0.0.tgz')));
  const list = JSON.parse(entries.get('files.json')!.toString());
  assert.equal(list.files.map((f: { path: string }) => f.path), ['index.js', 'lib/answer.js', 'manifest.json', 'package.json']);
  assert.equal([...entries.keys()].sort(), ['files.json', 'index.js', 'lib/answer.js', 'manifest.json', 'package.json', 'signature.json']);
});

test('verify refuses a package whose bytes changed after packing, or whose signature is over another digest', async () => {
  const file = path.join(dir, 'packed-1.0.0.tgz');
  const entries = await readTarEntries(readFileSync(file));
  const tampered = new Map(entries);
  tampered.set('lib/answer.js', Buffer.from('export function answer() { return "evil"; }\n'));
  await writePackageArchive(tampered, path.join(dir, 'tampered.tgz'));
  const r = run('plugins', 'verify', 'tampered.tgz');
  assert.is(r.code, 1);
  assert.match(r.err, /"lib\/answer\.js" does not match its SHA-256/);

  const relisted = new Map(entries);
  const list = JSON.parse(entries.get('files.json')!.toString());
  list.version = '9.9.9';
  relisted.set('files.json', Buffer.from(JSON.stringify(list)));
  await writePackageArchive(relisted, path.join(dir, 'relisted.tgz'));
  const r2 = run('plugins', 'verify', 'relisted.tgz');
  assert.is(r2.code, 1);
  assert.match(r2.err, /the signature is over sha256-/);
});

test('pack refuses a manifest failing lint, an entry leaving the folder, a bundled SDK', () => {
  const bad = writePluginFolder(dir, 'badlint', { manifest: { version: 'not-semver' } });
  assert.match(run('plugins', 'pack', bad).err, /the manifest fails lint/);

  const leaving = writePluginFolder(dir, 'leaving');
  writeFileSync(path.join(dir, 'outside.js'), 'export {};\n');
  symlinkSync(path.join(dir, 'outside.js'), path.join(leaving, 'lib', 'outside.js'));
  const r = run('plugins', 'pack', leaving);
  assert.is(r.code, 1);
  assert.match(r.err, /symbolic link leading out of the folder/);
  const climbing = writePluginFolder(dir, 'climbing', { manifest: { entry: '../outside.js' } });
  assert.match(run('plugins', 'pack', climbing).err, /entry-outside-folder/);

  const shipping = writePluginFolder(dir, 'shipping');
  writeFileSync(path.join(shipping, 'package.json'), JSON.stringify({ name: 'shipping', dependencies: { switchboard: '^0.1.0' } }));
  assert.match(run('plugins', 'pack', shipping).err, /ships the SDK/);
  const bundling = writePluginFolder(dir, 'bundling');
  writeFileSync(path.join(bundling, 'lib', 'sdk.js'), "export const brand = Symbol.for('switchboard.plugin');\n");
  assert.match(run('plugins', 'pack', bundling).err, /lib\/sdk\.js bundles the SDK/);
  assert.not.ok(spawnSync('ls', [dir], { encoding: 'utf8' }).stdout.match(/(badlint|leaving|climbing|shipping|bundling)-1\.0\.0\.tgz/), 'nothing written');
});

test.run();
