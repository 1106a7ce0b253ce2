import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { conformance, startTestKernel } from 'switchboard/sdk/testing';
import plugin from '../../../docs/examples/keyword-retrieval/src/index.js';
import { ROOT, json, startGateway, tempDir, until } from '../../support/gateway.js';

const exampleDir = path.join(ROOT, 'docs/examples/keyword-retrieval');
// The example is a plugin folder laid out as docs/sdk-guide.md says; it is copied outside the
// package and built there with its own tsconfig, as its author would.
const plugins = tempDir('switchboard-example-');
const folder = path.join(plugins, 'keyword-retrieval');

test.before(() => {
  cpSync(exampleDir, folder, { recursive: true, filter: (src) => !/[/\\](dist|node_modules)$/.test(src) });
  const tsconfig = path.join(folder, 'tsconfig.json');
  writeFileSync(tsconfig, readFileSync(tsconfig, 'utf8').replaceAll('../../../dist/', `${ROOT}/dist/`));
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: folder, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the example does not build: ${r.stdout}${r.stderr}`);
});
test.after(() => rmSync(plugins, { recursive: true, force: true }));

test('the example has the guide\'s layout: manifest entry dist/index.js built from src/', () => {
  const manifest = JSON.parse(readFileSync(path.join(exampleDir, 'manifest.json'), 'utf8')) as { entry: string };
  assert.is(manifest.entry, 'dist/index.js');
  assert.ok(existsSync(path.join(folder, 'dist/index.js')));
  assert.not.ok(existsSync(path.join(folder, 'node_modules')));
});

test('the example imports nothing of ours but switchboard/sdk', () => {
  const source = readFileSync(path.join(exampleDir, 'src/index.ts'), 'utf8');
  const imports = [...source.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]);
  assert.equal(imports, ['switchboard/sdk']);
});

// A search-only backend: it has no write sessions, so code search cannot index with it (below);
// every other case of the suite holds.
const suite = conformance.retrieval({ plugin });
for (const c of suite.filter((c) => !c.name.includes('write sessions'))) test(c.name, c.run);

test('the suite\'s write-session cases fail it, naming what code search needs', async () => {
  const sessions = suite.filter((c) => c.name.includes('write sessions'));
  assert.is(sessions.length, 2);
  for (const c of sessions) {
    const err = await c.run().then(() => undefined, (e: Error) => e);
    assert.match(err?.message ?? 'passed', /no openSession: code search cannot index with it/);
  }
});

test('the SDK test kernel loads it from a plugins directory', async () => {
  const k = await startTestKernel({ searchPaths: [plugins] });
  try {
    assert.is(k.kernel.stateOf('keyword-retrieval'), 'active');
    const hits = await k.kernel.withProvider('retrieval', 'keyword-retrieval', async (r) => {
      await r.index('c', [{ id: 'x', text: 'FaxDispatcher claimLease' }]);
      return r.search('c', 'claim lease', 3);
    });
    assert.is(hits[0]?.id, 'x', 'camelCase identifiers are split');
  } finally {
    await k.stop();
  }
});

test('selecting it is not silent: the config write warns, the log warns, an index run and a search answer 503', async () => {
  const gw = await startGateway({ PLUGINS_PATH: plugins });
  try {
    await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === 'keyword-retrieval')?.state === 'active', 10_000);
    const post = (body: unknown) => fetch(`${gw.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const selected = await post({ RETRIEVAL_BACKEND: 'keyword-retrieval' });
    assert.is(selected.status, 200);
    const written = await json(selected);
    assert.is(written.config.RETRIEVAL_BACKEND, 'keyword-retrieval');
    assert.equal(written.warnings, ['RETRIEVAL_BACKEND "keyword-retrieval" has no write sessions (openSession, retrieval@1.1): code search cannot index with it, index runs and searches answer 503 retrieval_backend_cannot_index']);
    await until(() => gw.logs.some((l) => l.includes('RETRIEVAL_BACKEND \\"keyword-retrieval\\" has no write sessions')), 10_000);
    // Documents indexed by other means are still not served as code search: the answer says why.
    await gw.gateway.kernel.withProvider('retrieval', 'keyword-retrieval', (r) => r.index('switchboard', [{ id: 'readme', text: 'drop a manifest', metadata: { path: 'README.md', start_line: 3, end_line: 4 } }]));
    for (const res of [await fetch(`${gw.url}/api/search?q=manifest`), await fetch(`${gw.url}/api/index/start`, { method: 'POST' })]) {
      assert.is(res.status, 503);
      const body = await json(res);
      assert.is(body.code, 'retrieval_backend_cannot_index');
      assert.match(body.detail, /retrieval backend "keyword-retrieval" cannot index code: it has no write sessions \(openSession, retrieval@1\.1\); set RETRIEVAL_BACKEND/);
    }
    assert.is((await json(await fetch(`${gw.url}/api/index/status`))).run, null, 'no run was started');
    // Back to a backend that can index: no warning; one that does not exist: a warning.
    assert.equal((await json(await post({ RETRIEVAL_BACKEND: 'retrieval-sqlite' }))).warnings, []);
    assert.equal((await json(await post({ RETRIEVAL_BACKEND: 'no-such-backend' }))).warnings, ['RETRIEVAL_BACKEND "no-such-backend" is not an active retrieval plugin (state: unknown): searches and index runs answer 503 until it is']);
  } finally {
    await gw.close();
  }
});

test.run();
