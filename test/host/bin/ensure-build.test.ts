import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/gateway.js';

// `npm start`'s build check (host/bin/ensure-build.mjs, ensureBuildQuick) in a checkout of one
// source file: a fresh clone has no dist/ and is built; a current build is not rebuilt; a moved
// mark (the git index, as a pull rewrites it) with no newer source only re-stamps the entry; an
// edited source is built again. The
// README tour's clone is given this checkout's build, so this is where the fresh-clone build runs.
const checkout = tempDir('switchboard-ensure-build-');
const entry = path.join(checkout, 'dist/host/main.js');
const source = path.join(checkout, 'host/main.ts');

/** ensureBuildQuick('host/main.js') in a process of its own; its stderr says whether tsc ran. */
function ensureBuild(): { built: boolean; stderr: string } {
  const script = `import(${JSON.stringify(path.join(checkout, 'host/bin/ensure-build.mjs'))}).then((m) => m.ensureBuildQuick('host/main.js'));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: checkout, encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, r.stderr);
  return { built: r.stderr.includes('[switchboard] building'), stderr: r.stderr };
}

/** Sets a file's mtime `secondsAgo` in the past, so that the order of the marks is certain. */
const age = (file: string, secondsAgo: number) => {
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, when, when);
};

test.before(() => {
  mkdirSync(path.join(checkout, 'host/bin'), { recursive: true });
  copyFileSync(path.join(ROOT, 'host/bin/ensure-build.mjs'), path.join(checkout, 'host/bin/ensure-build.mjs'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
  writeFileSync(path.join(checkout, 'package.json'), JSON.stringify({ name: 'one-file', private: true, type: 'module' }));
  writeFileSync(path.join(checkout, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', outDir: 'dist', rootDir: '.', types: [] }, include: ['host'] }));
  writeFileSync(source, "export const answer: string = 'first';\n");
  const git = spawnSync('sh', ['-c', 'git init -q && git add -A'], { cwd: checkout, encoding: 'utf8' });
  assert.is(git.status, 0, git.stderr);
  for (const file of ['package.json', 'tsconfig.json', 'host/main.ts', '.git/index']) age(path.join(checkout, file), 60);
});
test.after(() => rmSync(checkout, { recursive: true, force: true }));

test('a checkout without dist/ is built on start', () => {
  assert.not.ok(existsSync(entry));
  const run = ensureBuild();
  assert.ok(run.built, run.stderr);
  assert.match(readFileSync(entry, 'utf8'), /answer = 'first'/);
});

test('a current build is not rebuilt; a newer git index with no newer source only re-stamps the entry', () => {
  assert.not.ok(ensureBuild().built);
  age(entry, 30);
  age(path.join(checkout, '.git/index'), 10);
  const run = ensureBuild();
  assert.not.ok(run.built, run.stderr);
  assert.ok(Date.now() - statSync(entry).mtimeMs < 10_000, 'the entry is stamped now');
});

test('an edited source under a moved mark is built again', () => {
  age(entry, 30);
  writeFileSync(source, "export const answer: string = 'second';\n");
  age(source, 20);
  age(path.join(checkout, '.git/index'), 10);
  const run = ensureBuild();
  assert.ok(run.built, run.stderr);
  assert.match(readFileSync(entry, 'utf8'), /answer = 'second'/);
});

test.run();
