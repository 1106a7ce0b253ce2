import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GoldenSetError, parseGoldenSet, readGoldenFile } from '../../../../../host/surfaces/search/evaluation/golden-set.js';
import { ROOT } from '../../../../support/gateway.js';

const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-golden-'));

function errorOf(fn: () => unknown): GoldenSetError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, GoldenSetError);
    return err as GoldenSetError;
  }
  throw new Error('expected a GoldenSetError');
}

test('a well-formed golden set parses', () => {
  const set = parseGoldenSet([{ q: 'where?', repo: 'r', expect_paths: ['a.ts'] }, { q: 'what?', expect_paths: ['b', 'c'] }]);
  assert.is(set.length, 2);
  assert.is(set[1]!.repo, undefined);
});

test('a bad entry is named by index and field', () => {
  assert.match(errorOf(() => parseGoldenSet([{ q: 'ok', expect_paths: ['a'] }, { q: 'no paths', expect_paths: [] }])).message, /entry 1\.expect_paths: must list at least one/);
  assert.match(errorOf(() => parseGoldenSet([{ q: '', expect_paths: ['a'] }])).message, /entry 0\.q/);
  assert.match(errorOf(() => parseGoldenSet([{ q: 'x', repo: '../etc', expect_paths: ['a'] }])).message, /entry 0\.repo: must be a plain repository name/);
  assert.match(errorOf(() => parseGoldenSet([{ q: 'x', expect_paths: ['a'], extra: 1 }])).message, /entry 0/);
});

test('something other than an array of questions is refused with the expected shape', () => {
  assert.match(errorOf(() => parseGoldenSet({ q: 'x' })).message, /JSON array of \{q, repo, expect_paths\}/);
  assert.match(errorOf(() => parseGoldenSet([])).message, /at least one question/);
});

test('a file that is missing or not JSON gives a clear error naming the file', async () => {
  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, '[{"q": "x",');
  await readGoldenFile(bad).then(
    () => assert.unreachable(),
    (err: Error) => {
      assert.instance(err, GoldenSetError);
      assert.match(err.message, /bad\.json: not valid JSON/);
    },
  );
  await readGoldenFile(path.join(dir, 'absent.json')).then(
    () => assert.unreachable(),
    (err: Error) => assert.match(err.message, /absent\.json: cannot read \(ENOENT\)/),
  );
});

test('the shipped golden sets are valid and large enough', async () => {
  const ours = await readGoldenFile(path.join(ROOT, 'test/fixtures/golden/switchboard.json'));
  const pino = await readGoldenFile(path.join(ROOT, 'test/fixtures/golden/pino.json'));
  assert.ok(ours.length >= 80, `switchboard.json has ${ours.length} questions`);
  assert.ok(pino.length >= 40, `pino.json has ${pino.length} questions`);
  assert.ok(ours.every((g) => g.repo === 'switchboard'));
  assert.ok(pino.every((g) => g.repo === 'pino'));
  // no question asked twice
  assert.is(new Set(ours.map((g) => g.q.toLowerCase())).size, ours.length);
  assert.is(new Set(pino.map((g) => g.q.toLowerCase())).size, pino.length);
});

test('every expected path substring names a file that exists in its repository', async () => {
  const checks: Array<[string, string]> = [
    ['test/fixtures/golden/switchboard.json', ROOT],
    ['test/fixtures/golden/pino.json', path.join(ROOT, 'node_modules/pino')],
  ];
  for (const [file, root] of checks) {
    const paths = listFiles(root);
    for (const g of await readGoldenFile(path.join(ROOT, file))) {
      for (const e of g.expect_paths) assert.ok(paths.some((p) => p.includes(e)), `${file}: "${e}" (for "${g.q}") matches no file under ${root}`);
    }
  }
});

function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (['node_modules', '.git', 'dist'].includes(entry.name)) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(root, child));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
