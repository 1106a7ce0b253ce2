import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, json, tempDir, until } from '../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { networkEnv } from '../support/network-env.js';
import { copyBuildIntoClone } from '../support/clone-build.js';

// docs/sdk-guide.md followed as written, in a folder outside the repository: its shell blocks
// (```sh title="shell, in ..."```) run in bash, its titled files (```... title="my-plugin/..."```)
// are written into the plugin folder, and its last block starts a gateway that indexes and
// searches through the plugin. Nothing is copied from the repository; the guide's
// /opt/switchboard is a fresh clone of HEAD in the temp folder (commit first: the working tree's
// changes are not in it), built there (given this checkout's dist/ when tsc's inputs here are
// HEAD's: the same files), its node_modules linked from this checkout instead of a
// network install. npm installs from the registry (prefer-offline) into the temp folder only;
// `npm link` goes to a temp global prefix.
const base = tempDir('switchboard-guide-outside-');
const HOST = path.join(base, 'switchboard');
const guide = () => readFileSync(path.join(HOST, 'docs/sdk-guide.md'), 'utf8');
const host = (text: string) => text.replaceAll('/opt/switchboard', HOST);
let blocks: Array<{ lang: string; title: string; text: string }> = [];
const files = () => blocks.filter((b) => b.title.startsWith('my-plugin/')).map((b) => ({ name: b.title.slice('my-plugin/'.length), text: host(b.text) }));
const shells = () => blocks.filter((b) => b.lang === 'sh' && b.title.startsWith('shell, in '));

const work = path.join(base, 'work');
const folder = path.join(work, 'my-plugin');
const prefix = path.join(base, 'npm-global');
const demo = path.join(base, 'demo');
let gateway: ChildGateway | undefined;

/** Runs a shell block of the guide with bash -e; `my-plugin/` blocks start in the plugin folder. */
function runBlock(block: { title: string; text: string }) {
  const cwd = block.title === 'shell, in my-plugin/' ? folder : work;
  const r = spawnSync('bash', ['-e', '-c', host(block.text)], {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    env: {
      ...networkEnv(),
      PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: process.env.HOME ?? base,
      // Test speed and isolation only; the commands are the guide's.
      NPM_CONFIG_PREFIX: prefix,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const shell = (title: string, first: RegExp) => {
  const block = shells().find((b) => b.title === title && first.test(b.text));
  assert.ok(block, `the guide has a "${title}" block matching ${first}`);
  return block!;
};

test.before(() => {
  const cloned = spawnSync('git', ['clone', '--quiet', ROOT, HOST], { encoding: 'utf8' });
  assert.is(cloned.status, 0, cloned.stderr);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(HOST, 'node_modules'));
  if (!copyBuildIntoClone(HOST)) {
    const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: HOST, encoding: 'utf8', timeout: 180_000 });
    assert.is(built.status, 0, `${built.stdout}${built.stderr}`);
  }
  blocks = [...guide().matchAll(/```(\w+)(?: title="([^"]+)")?\n([\s\S]*?)\n```/g)].map((m) => ({ lang: m[1]!, title: m[2] ?? '', text: m[3]! }));
  mkdirSync(work, { recursive: true });
  mkdirSync(path.join(demo, 'src'), { recursive: true });
  writeFileSync(path.join(demo, 'src/header.ts'), 'export function parseFaxHeader(line: string): string[] {\n  return line.split(":");\n}\n');
  writeFileSync(path.join(demo, 'README.md'), '# Demo\n\nA repository to index.\n');
});
test.after(async () => {
  await gateway?.kill();
  rmSync(base, { recursive: true, force: true });
});

test('the folder is outside the repository, and so is the host, a fresh clone', () => {
  assert.not.ok(realpathSync(folder + '/..').startsWith(realpathSync(ROOT) + path.sep));
  assert.not.ok(realpathSync(HOST).startsWith(realpathSync(ROOT) + path.sep));
  assert.ok(existsSync(path.join(HOST, 'dist/host/main.js')));
});

test('start: sdk pack, plugins new, npm install, npm test and npm run lint pass on the generated plugin', () => {
  const r = runBlock(shell('shell, in any folder', /plugins new retrieval my-plugin/));
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /^ok \d+ - retrieval conformance: write sessions: a commit publishes the sources at once/m);
  assert.match(r.out, /^# fail 0$/m);
  assert.match(r.out, /manifest\.json: ok \(my-plugin@0\.1\.0\)/);
  // Its own TypeScript and the SDK package from the tarball; nothing of the host installed into the folder.
  assert.ok(existsSync(path.join(folder, 'node_modules/typescript/package.json')));
  assert.ok(existsSync(path.join(folder, 'node_modules/@switchboard/sdk/package.json')));
  assert.not.ok(existsSync(path.join(folder, 'node_modules/switchboard')));
});

test('the guide\'s files replace the generated ones; its pins are the host\'s', () => {
  const guideFiles = files();
  assert.equal(guideFiles.map((f) => f.name).sort(), ['manifest.json', 'package.json', 'src/collections.ts', 'src/index.ts', 'src/plugin.test.ts', 'src/terms.ts', 'tsconfig.json']);
  for (const f of guideFiles) writeFileSync(path.join(folder, f.name), f.text);
  const hostDev = JSON.parse(readFileSync(path.join(HOST, 'package.json'), 'utf8')).devDependencies;
  const pluginDev = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).devDependencies;
  assert.equal(pluginDev, { typescript: hostDev.typescript, '@types/node': hostDev['@types/node'] });
});

test('npx tsc -p . builds with the folder\'s own compiler', () => {
  const r = runBlock({ title: 'shell, in my-plugin/', text: 'npx --no-install tsc --version && npx tsc -p .' });
  assert.is(r.code, 0, r.out);
  assert.match(r.out, new RegExp(`Version ${JSON.parse(readFileSync(path.join(folder, 'node_modules/typescript/package.json'), 'utf8')).version.replaceAll('.', '\\.')}`));
  for (const f of ['index.js', 'collections.js', 'terms.js', 'plugin.test.js']) assert.ok(existsSync(path.join(folder, 'dist', f)), f);
});

test('test: npm test runs the conformance suite and the plugin\'s own node:test file; lint passes', () => {
  const r = runBlock(shell('shell, in my-plugin/', /^npm test/));
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /ok {3}retrieval conformance: write sessions: replace and delete sources; abort leaves the collection as it was/);
  assert.match(r.out, /ok {3}own tests: dist\/plugin\.test\.js/);
  assert.match(r.out, /my-plugin@1\.0\.0: 6 passed, 0 failed/);
  assert.match(r.out, /manifest\.json: ok \(my-plugin@1\.0\.0\)/);
});

test('npx switchboard works from the plugin folder after npm link in the host\'s folder', () => {
  const r = runBlock(shell('shell, in my-plugin/', /npm link/));
  assert.is(r.code, 0, r.out);
  assert.ok(lstatSync(path.join(prefix, 'lib/node_modules/switchboard')).isSymbolicLink());
  assert.is(realpathSync(path.join(prefix, 'lib/node_modules/switchboard')), realpathSync(HOST));
  assert.match(r.out, /manifest\.json: ok \(my-plugin@1\.0\.0\)/);
  assert.match(r.out, /my-plugin@1\.0\.0: 6 passed, 0 failed/);
});

test('ship: plugins pack, sign and verify run as the guide writes them, from the folder holding my-plugin/', () => {
  const r = runBlock(shell('shell, in the folder holding my-plugin/', /plugins pack my-plugin/));
  assert.is(r.code, 0, r.out);
  assert.ok(existsSync(path.join(work, 'my-plugin-1.0.0.tgz')), r.out);
  assert.ok(existsSync(path.join(work, 'signing-key.pem')));
  // sign and verify both name the signer; verify reads the signature it just checked.
  const signers = [...r.out.matchAll(/signer (SHA256:\S+)/g)].map((m) => m[1]);
  assert.ok(signers.length >= 2 && new Set(signers).size === 1, r.out);
});

test('a gateway started as the guide says indexes the demo repository through the plugin and finds code', async () => {
  const ship = shell('shell, in the folder holding my-plugin/', /switchboard start/);
  const startLine = ship.text.split('\n').find((l) => l.includes('switchboard start'))!;
  const env = Object.fromEntries(
    [...startLine.matchAll(/(\w+)=('([^']*)'|(\S+))/g)].map((m) => [m[1]!, (m[3] ?? m[4]!).replace('$PWD', work).replace('/srv/demo', demo)]),
  );
  assert.equal(Object.keys(env).sort(), ['PLUGINS_PATH', 'REPO', 'REPOS', 'RETRIEVAL_BACKEND']);
  gateway = await startChildGateway({ ...env, DATA_DIR: path.join(base, 'data') }, undefined, HOST);
  const url = gateway.url;
  await until(async () => (await json(await fetch(`${url}/plugins`))).plugins.find((p: { id: string; state: string }) => p.id === 'my-plugin')?.state === 'active', 20_000, 100);
  const calls = ship.text.split('\n').filter((l) => l.startsWith('curl ')).map((l) => ({ method: /-X (\w+)/.exec(l)?.[1] ?? 'GET', path: /localhost:8080(\S*?)'?$/.exec(l)![1]! }));
  assert.equal(calls.map((c) => `${c.method} ${c.path.split('?')[0]}`), ['POST /api/index/start', 'GET /api/index/status', 'GET /api/search']);
  const [start, status, search] = calls as [typeof calls[0], typeof calls[0], typeof calls[0]];
  const started = await fetch(`${url}${start.path}`, { method: start.method });
  assert.is(started.status, 202, await started.clone().text());
  const finished = await until(async () => {
    const run = (await json(await fetch(`${url}${status.path}`))).run;
    return run?.state === 'running' ? undefined : run;
  }, 30_000, 100);
  assert.is(finished.state, 'finished', JSON.stringify(finished));
  assert.is(finished.files_changed, 2);
  const found = await json(await fetch(`${url}${search.path}`));
  assert.is(found.repo, 'demo');
  assert.is(found.results[0]?.path, 'src/header.ts', JSON.stringify(found));
  assert.match(found.results[0].snippet, /parseFaxHeader/);
  // The plugin's files under DATA_DIR hold the committed collection.
  assert.ok(existsSync(path.join(base, 'data/my-plugin/demo.json')));
});

test('npm test fails (exit 1) when the plugin\'s own test fails', () => {
  const testFile = path.join(folder, 'src/plugin.test.ts');
  writeFileSync(testFile, readFileSync(testFile, 'utf8').replace("assert.deepEqual(await retrieval.search('own', 'fax', 5), []);", "assert.deepEqual(await retrieval.search('own', 'gateway', 5), []);"));
  const r = runBlock({ title: 'shell, in my-plugin/', text: 'npm test' });
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /FAIL own tests: dist\/plugin\.test\.js/);
  assert.match(r.out, /my-plugin@1\.0\.0: 5 passed, 1 failed/);
});

test.run();
