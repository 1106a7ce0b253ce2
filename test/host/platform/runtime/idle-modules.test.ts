import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, removeDir, tempDir, until } from '../../../support/gateway.js';
import { startChildGateway } from '../../../support/child-gateway.js';

/** Packages only some requests use, which must not load with an idle gateway (each costs MBs of RSS). */
const LAZY_PACKAGES = ['re2-wasm', 'tar'];

/** Preloaded: on SIGUSR2, prints the packages of every script the process has loaded (CJS and ESM alike). */
const SCRIPT_PROBE = `import { Session } from 'node:inspector';
  process.on('SIGUSR2', () => {
    const session = new Session();
    session.connect();
    const packages = new Set();
    session.on('Debugger.scriptParsed', (e) => { const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(e.params.url); if (m) packages.add(m[1]); });
    session.post('Debugger.enable', () => { session.disconnect(); process.stderr.write('loaded packages ' + JSON.stringify([...packages]) + '\\n'); });
  });`;

test('an idle gateway has not loaded re2-wasm (16 MB of WebAssembly memory) or tar', async () => {
  const dataDir = tempDir();
  const gateway = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(SCRIPT_PROBE)}` });
  try {
    process.kill(gateway.pid, 'SIGUSR2');
    const line = await until(() => /^loaded packages (.*)$/m.exec(gateway.output())?.[1], 20_000, 50);
    const loaded: string[] = JSON.parse(line);
    assert.ok(loaded.includes('express') && loaded.includes('zod'), line);
    for (const name of LAZY_PACKAGES) assert.not.ok(loaded.includes(name), `${name} loaded at idle`);
  } finally {
    await gateway.kill();
    removeDir(dataDir);
  }
});

test('re2-wasm loads with the first regular expression, and checks it as before', () => {
  const query = pathToFileURL(path.join(ROOT, 'dist/host/surfaces/search/query/search-query.js')).href;
  const matcher = pathToFileURL(path.join(ROOT, 'dist/host/surfaces/search/code-index/text-matcher.js')).href;
  const script = `
    const { parseSearchQuery } = await import(${JSON.stringify(query)});
    const { textMatcher } = await import(${JSON.stringify(matcher)});
    const { createRequire } = await import('node:module');
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/re2-wasm/'));
    const out = { words: parseSearchQuery('plain words').words, afterWords: loaded() };
    try { parseSearchQuery('/a(b/'); } catch (err) { out.invalid = err.message; }
    out.afterRegex = loaded();
    out.found = textMatcher({ kind: 'regex', source: 'b+c' }, true).find('abbc bc', 10);
    console.log(JSON.stringify(out));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.equal(out.words, ['plain', 'words']);
  assert.is(out.afterWords, false, 'a query without a regular expression does not load re2-wasm');
  assert.match(out.invalid, /is not a valid regular expression/);
  assert.is(out.afterRegex, true);
  assert.equal(out.found, [
    { index: 1, length: 3 },
    { index: 5, length: 2 },
  ]);
});

test.run();
