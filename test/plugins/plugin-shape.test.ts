import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/plugins/ -> the project root: manifests, plugin folders and test sources are read there.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const ids = readdirSync(path.join(root, 'manifests'))
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.slice(0, -'.json'.length))
  .sort();

/** What a built-in plugin lacks of its shape: folder with README, tests, catalogue entry. */
function gaps(id: string, catalogued: Set<string>): string[] {
  const missing: string[] = [];
  if (!existsSync(path.join(root, 'plugins', id, 'README.md'))) missing.push(`plugins/${id}/README.md`);
  const tests = path.join(root, 'test/plugins', id);
  if (!existsSync(tests) || !readdirSync(tests).some((name) => name.endsWith('.test.ts'))) missing.push(`a *.test.ts in test/plugins/${id}/`);
  if (!catalogued.has(id)) missing.push('an entry in registry/index.json');
  return missing;
}

test('there are built-in manifests to check', () => {
  assert.ok(ids.length >= 12, ids.join(', '));
});

test('every built-in manifest has its plugin folder with a README, its tests and its catalogue entry', () => {
  const index = JSON.parse(readFileSync(path.join(root, 'registry/index.json'), 'utf8')) as { plugins: Array<{ id: string; builtin?: boolean }> };
  const catalogued = new Set(index.plugins.filter((p) => p.builtin).map((p) => p.id));
  const problems = ids.flatMap((id) => gaps(id, catalogued).map((gap) => `${id}: no ${gap}`));
  assert.equal(problems, []);
});

test('a plugin folder with code belongs to a built-in manifest whose entry points into it', () => {
  for (const id of ids) {
    const manifest = JSON.parse(readFileSync(path.join(root, 'manifests', `${id}.json`), 'utf8')) as { entry?: string };
    if (manifest.entry) assert.is(path.resolve(root, 'manifests', manifest.entry), path.join(root, 'plugins', id, 'index.ts'), id);
  }
  for (const folder of readdirSync(path.join(root, 'plugins'))) assert.ok(ids.includes(folder), `plugins/${folder} has no manifests/${folder}.json`);
});

test.run();
