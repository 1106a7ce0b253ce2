import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, json, startGateway, tempDir } from '../support/gateway.js';

// The guide's steps, run as a third party would: its titled files written to a folder under
// os.tmpdir() (outside the package, no node_modules), built with tsc, tested with the host's
// `plugins test`, then loaded by a real gateway from PLUGINS_PATH.
const guide = readFileSync(path.join(ROOT, 'docs/sdk-guide.md'), 'utf8');
const files = [...guide.matchAll(/```\w+ title="my-plugin\/([^"]+)"\n([\s\S]*?)\n```/g)].map((m) => ({ name: m[1]!, text: m[2]!.replaceAll('/opt/switchboard', ROOT) }));
const commandOf = (re: RegExp) => {
  const line = re.exec(guide)?.[0];
  assert.ok(line, `the guide shows ${re}`);
  return line!.replaceAll('/opt/switchboard', ROOT).split(/\s+/);
};

const base = tempDir('switchboard-guide-');
const plugins = path.join(base, 'plugins');
const folder = path.join(plugins, 'my-plugin');

function run(argv: string[]) {
  const [cmd, ...args] = argv;
  const r = spawnSync(cmd === 'node' ? process.execPath : cmd!, args, { cwd: folder, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test.after(() => rmSync(base, { recursive: true, force: true }));

test('the guide names the files of the layout it shows', () => {
  assert.equal(files.map((f) => f.name).sort(), ['manifest.json', 'package.json', 'src/index.ts', 'src/terms.ts', 'tsconfig.json']);
  for (const f of files) {
    mkdirSync(path.dirname(path.join(folder, f.name)), { recursive: true });
    writeFileSync(path.join(folder, f.name), f.text);
  }
});

test('the build step compiles src/ to dist/index.js with tsc', () => {
  // `npx tsc -p .`: the host's own TypeScript stands in for the plugin's devDependency.
  const r = run(['node', path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.']);
  assert.is(r.code, 0, r.out);
  assert.ok(existsSync(path.join(folder, 'dist/index.js')));
  assert.ok(existsSync(path.join(folder, 'dist/terms.js')));
  assert.not.ok(existsSync(path.join(folder, 'node_modules')));
});

test('`plugins test .` from the folder runs the conformance suite of its kind and passes', () => {
  const r = run(commandOf(/node \/opt\/switchboard\/host\/bin\/switchboard\.mjs plugins test \./));
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /ok {3}retrieval conformance: indexed documents are found/);
  assert.match(r.out, /my-plugin@1\.0\.0: 3 passed, 0 failed/);
});

test('`plugins lint manifest.json` accepts the manifest', () => {
  const r = run(commandOf(/node \/opt\/switchboard\/host\/bin\/switchboard\.mjs plugins lint manifest\.json/));
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /ok \(my-plugin@1\.0\.0\)/);
});

test('a gateway with the folder on PLUGINS_PATH serves it', async () => {
  const gw = await startGateway({ PLUGINS_PATH: plugins, RETRIEVAL_BACKEND: 'my-plugin' });
  try {
    const entry = (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: { id: string }) => p.id === 'my-plugin');
    assert.is(entry?.state, 'active', JSON.stringify(entry));
    const hits = await gw.gateway.kernel.withProvider('retrieval', 'my-plugin', async (r) => {
      await r.index('c', [{ id: 'readme', text: 'drop a plugin folder on the path' }]);
      return r.search('c', 'plugin folder', 3);
    });
    assert.is(hits[0]?.id, 'readme');
  } finally {
    await gw.close();
  }
});

test('`plugins test` fails (exit 1) when the plugin breaks its contract', () => {
  const index = path.join(folder, 'dist/index.js');
  writeFileSync(index, readFileSync(index, 'utf8').replace('.slice(0, topK)', '.reverse()'));
  const r = run(commandOf(/node \/opt\/switchboard\/host\/bin\/switchboard\.mjs plugins test \./));
  assert.is(r.code, 1, r.out);
  assert.match(r.out, /FAIL retrieval conformance: topK bounds the results/);
});

test.run();
