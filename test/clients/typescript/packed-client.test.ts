// The client as another project gets it: `npm pack` (its prepack builds dist/), the tarball
// unpacked into a separate project's node_modules as npm would, compiled there with tsc.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { removeDir, ROOT, tempDir } from '../../support/gateway.js';

const run = promisify(execFile);
const CLIENT = path.join(ROOT, 'clients/typescript');
const TSC = path.join(CLIENT, 'node_modules/typescript/bin/tsc');
// The client's one dependency and its own, taken from the checkout: the test asks no registry.
const DEPENDENCIES = ['openapi-fetch', 'openapi-typescript-helpers'];
let work: string;
let consumer: string;

/** Links the installed copies of packages into a node_modules folder. */
function linkModules(nodeModules: string, names: string[], from: string): void {
  mkdirSync(nodeModules, { recursive: true });
  for (const name of names) symlinkSync(path.join(from, name), path.join(nodeModules, name));
}

/** Compiles a consumer project's one source file; answers tsc's exit code and output. */
async function compile(file: string, source: string): Promise<{ code: number; output: string }> {
  writeFileSync(path.join(consumer, file), source);
  writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022', 'DOM'], strict: true, skipLibCheck: true, outDir: 'out' },
    files: [file],
  }));
  const out = await run(process.execPath, [TSC, '-p', path.join(consumer, 'tsconfig.json')]).catch((err) => err);
  return { code: out.code ?? 0, output: `${out.stdout}${out.stderr}` };
}

test.before(async () => {
  work = tempDir('client-pack-');
  // Packed from a copy, so the build that prepack runs writes nothing into the checkout.
  const source = path.join(work, 'client');
  for (const entry of ['package.json', 'tsconfig.json', 'README.md', 'copy-schema.mjs', 'src']) cpSync(path.join(CLIENT, entry), path.join(source, entry), { recursive: true });
  linkModules(path.join(source, 'node_modules'), DEPENDENCIES, path.join(ROOT, 'node_modules'));
  linkModules(path.join(source, 'node_modules'), ['typescript'], path.join(CLIENT, 'node_modules'));
  mkdirSync(path.join(source, 'node_modules/.bin'));
  symlinkSync('../typescript/bin/tsc', path.join(source, 'node_modules/.bin/tsc'));
  await run('npm', ['pack', '--pack-destination', work], { cwd: source, env: { ...process.env, npm_config_update_notifier: 'false' } });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote a tarball');

  consumer = path.join(work, 'consumer');
  const installed = path.join(consumer, 'node_modules/@switchboard/client');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', path.join(work, tarball!), '-C', installed, '--strip-components=1']);
  linkModules(path.join(consumer, 'node_modules'), DEPENDENCIES, path.join(ROOT, 'node_modules'));
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
});
test.after(() => removeDir(work));

test('the packed types carry the schema: a correct call compiles, its answer is typed, and the import runs', async () => {
  const ok = await compile('search.ts', [
    "import { createSwitchboardClient, unwrap, type FaxJob } from '@switchboard/client';",
    "const sb = createSwitchboardClient({ baseUrl: 'http://127.0.0.1:1' });",
    'export async function firstPath(): Promise<string | undefined> {',
    "  const found = await unwrap(sb.GET('/api/search', { params: { query: { q: 'retry policy' } } }));",
    '  return found.results[0]?.path;',
    '}',
    "export const status = (job: FaxJob): string => job.status;",
    "console.log(typeof sb.GET, typeof firstPath);",
    '',
  ].join('\n'));
  assert.is(ok.code, 0, ok.output);
  const ran = await run(process.execPath, [path.join(consumer, 'out/search.js')], { cwd: consumer });
  assert.is(ran.stdout.trim(), 'function function');
});

test('a path typo and a misuse of an answer fail to compile', async () => {
  const typo = await compile('typo.ts', [
    "import { createSwitchboardClient } from '@switchboard/client';",
    "const sb = createSwitchboardClient({ baseUrl: 'http://127.0.0.1:1' });",
    "void sb.GET('/api/serch', { params: { query: { q: 'retry policy' } } });",
    '',
  ].join('\n'));
  assert.is(typo.code, 2, typo.output);
  assert.match(typo.output, /typo\.ts\(3,/);
  assert.match(typo.output, /\/api\/serch/);

  const misuse = await compile('misuse.ts', [
    "import { createSwitchboardClient, unwrap } from '@switchboard/client';",
    "const sb = createSwitchboardClient({ baseUrl: 'http://127.0.0.1:1' });",
    "export const lines = async (): Promise<number> => (await unwrap(sb.GET('/api/search', { params: { query: { q: 'x' } } }))).results[0]!.path;",
    '',
  ].join('\n'));
  assert.is(misuse.code, 2, misuse.output);
  assert.match(misuse.output, /misuse\.ts\(3,.*not assignable to type 'number'/);
});

test.run();
