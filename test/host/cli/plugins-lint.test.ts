import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alertManifest, entryManifest, httpManifest } from '../../core/manifest/fixtures.js';

// dist/test/host/cli -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const cli = path.join(root, 'dist/host/cli/run.js');
const hostVersion = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-lint-'));

function write(name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

function run(...args: string[]) {
  // Runs from another directory, so the host version must come from the package, not the cwd.
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const good = httpManifest();
good.host = `^${hostVersion}`;
const goodFile = write('good.json', good);

const bad = entryManifest();
bad.host = `^${hostVersion}`;
bad.extra = true;
bad.id = 'Not_An_Id';
const badFile = write('bad.json', bad);

test('a valid manifest prints ok with its id and version and exits 0', () => {
  const { code, stdout } = run('plugins', 'lint', goodFile);
  assert.is(code, 0);
  assert.is(stdout, `${goodFile}: ok (acme-fax@1.2.0)\n`);
});

test('a broken manifest prints one line per diagnostic and exits 1', () => {
  const { code, stdout } = run('plugins', 'lint', badFile);
  assert.is(code, 1);
  const lines = stdout.trim().split('\n');
  assert.ok(lines.includes(`${badFile}: error unknown-key at extra: unknown key "extra"`), stdout);
  assert.ok(lines.some((l) => l.startsWith(`${badFile}: error invalid-id at id: `)), stdout);
  assert.not.ok(stdout.includes(': ok ('));
});

test('several files are linted together; one bad file fails the run', () => {
  const { code, stdout } = run('plugins', 'lint', goodFile, badFile);
  assert.is(code, 1);
  assert.ok(stdout.includes(`${goodFile}: ok (acme-fax@1.2.0)`));
  assert.ok(stdout.includes(`${badFile}: error unknown-key`));
});

test('the host version is read from the package, so a range it misses is host-range-unmet', () => {
  const future = entryManifest();
  future.host = '^99';
  const { code, stdout } = run('plugins', 'lint', write('future.json', future));
  assert.is(code, 1);
  assert.match(stdout, `error host-range-unmet at host: this host is version ${hostVersion}`);
});

test('text that is not JSON and a missing file are reported, not thrown', () => {
  const broken = write('broken.json', '{ "id": ');
  const missing = path.join(dir, 'missing.json');
  const { code, stdout, stderr } = run('plugins', 'lint', broken, missing);
  assert.is(code, 1);
  assert.match(stdout, `${broken}: error invalid-json at (root): `);
  assert.match(stdout, `${missing}: error unreadable-file at (root): `);
  assert.is(stderr, '');
});

test('--json prints every file with its diagnostics as JSON', () => {
  const { code, stdout } = run('plugins', 'lint', '--json', goodFile, badFile);
  assert.is(code, 1);
  const results = JSON.parse(stdout) as { file: string; ok: boolean; id?: string; diagnostics: { code: string; path: string; severity: string }[] }[];
  assert.equal(results.map((r) => [r.file, r.ok, r.id]), [[goodFile, true, 'acme-fax'], [badFile, false, undefined]]);
  assert.ok(results[1]!.diagnostics.some((d) => d.code === 'unknown-key' && d.path === 'extra' && d.severity === 'error'));
});

test('no command or lint without files print usage and exit 2; an unknown command exits 2 with a hint', () => {
  for (const args of [[], ['plugins', 'lint'], ['plugins', 'lint', '--yaml', goodFile]]) {
    const { code, stdout, stderr } = run(...args);
    assert.is(code, 2, args.join(' '));
    assert.match(stdout + stderr, 'usage: switchboard');
  }
  const unknown = run('frobnicate');
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, 'switchboard --help lists the commands');
});

test('an alert block lints ok: its runtime is registered with the declarative runtimes (a block without one is unsupported-block, see core/kernel/declarative-runtimes)', () => {
  const alert = alertManifest();
  alert.host = `^${hostVersion}`;
  const file = write('alert.json', alert);
  const { code, stdout } = run('plugins', 'lint', file);
  assert.is(code, 0, stdout);
  assert.ok(stdout.includes(': ok ('), stdout);
  assert.not.ok(stdout.includes('unsupported-block'), stdout);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
