import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/gateway.js';

const cli = path.join(ROOT, 'dist/host/cli/run.js');
const dir = tempDir('switchboard-eval-cli-');
const repo = path.join(dir, 'repo');
mkdirSync(path.join(repo, 'src'), { recursive: true });
writeFileSync(path.join(repo, 'src/reload-queue.ts'), 'export class ReloadQueue {\n  // coalesce a key asked for again while it waits\n  coalesce(key: string) { return key; }\n}\n');
writeFileSync(path.join(repo, 'src/phone.ts'), 'export function maskPhone(number: string) { return "***" + number.slice(-4); }\n');
writeFileSync(path.join(repo, 'src/other.ts'), 'export const unrelated = 1;\n');

function write(name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function run(...args: string[]) {
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: path.join(dir, 'data'), ENV_FILE: path.join(dir, 'none.env'), LOG_LEVEL: 'silent', REPOS: JSON.stringify({ shop: repo }), REPO: 'shop' };
  const result = spawnSync(process.execPath, [cli, 'eval', ...args], { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('eval indexes, asks every question and prints the figures and the trace', () => {
  const golden = write('good.json', [
    { q: 'where is the reload queue coalesced?', repo: 'shop', expect_paths: ['reload-queue.ts'] },
    { q: 'which code masks phone numbers?', expect_paths: ['phone.ts'] },
  ]);
  const { code, stdout, stderr } = run('--golden', golden, '--index');
  assert.is(code, 0, stderr);
  assert.match(stdout, /questions\s+2/);
  assert.match(stdout, /hit@5\s+1\.000/);
  assert.match(stdout, /MRR@10\s+1\.000/);
  assert.match(stdout, /latency\s+p50 [\d.]+ ms, p95 [\d.]+ ms/);
  assert.match(stdout, /trace: out\/shop\/traces\/\d{8}T\d{6}Z_[0-9a-f]{8}\.json/);
  assert.is(readdirSync(path.join(dir, 'data/out/shop/traces')).length, 1);
  // --min-hit5 turns a quality floor into the exit code
  const strict = run('--golden', write('miss.json', [{ q: 'unrelated', expect_paths: ['no-such.ts'] }]), '--min-hit5', '0.5');
  assert.is(strict.code, 1);
  assert.match(strict.stderr, /hit@5 0 is below --min-hit5 0\.5/);
});

test('a malformed golden file is a usage error naming the file and the entry', () => {
  const notJson = run('--golden', write('broken.json', '[{"q": '));
  assert.is(notJson.code, 2);
  assert.match(notJson.stderr, /broken\.json: not valid JSON/);
  const badEntry = run('--golden', write('bad-entry.json', [{ q: 'x', expect_paths: ['a'] }, { q: 'y' }]));
  assert.is(badEntry.code, 2);
  assert.match(badEntry.stderr, /bad-entry\.json: entry 1\.expect_paths/);
  const missing = run('--golden', path.join(dir, 'absent.json'));
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /absent\.json: cannot read \(ENOENT\)/);
});

test('usage errors and unknown repositories exit 2 with a clear message', () => {
  assert.is(run().code, 2);
  assert.match(run().stderr, /--golden <file> is required/);
  assert.match(run('--golden', 'x.json', '--top-k', '5').stderr, /--top-k must be an integer from 10 to 100/);
  const unknown = run('--golden', write('unknown.json', [{ q: 'x', repo: 'nope', expect_paths: ['a'] }]));
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /no repository named "nope"/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
