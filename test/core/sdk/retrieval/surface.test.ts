import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sdk from 'switchboard/sdk';
import * as ranking from 'switchboard/sdk/retrieval';
import { startTestKernel, type TestKernel } from '../../../../core/testing/index.js';
import { tempDir } from '../../../support/gateway.js';
import { writePluginFolder } from '../../../support/plugin-folder.js';

// dist/test/core/sdk/retrieval -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const guide = readFileSync(path.join(root, 'docs/sdk-guide.md'), 'utf8');
const heading = '## Ranking for retrieval backends: `switchboard/sdk/retrieval`';
const section = guide.slice(guide.indexOf(heading), guide.indexOf('\n## ', guide.indexOf(heading) + heading.length));

test('every runtime export of switchboard/sdk/retrieval is documented in the SDK guide', () => {
  assert.ok(guide.includes(heading), 'the guide has a switchboard/sdk/retrieval section');
  const missing = Object.keys(ranking).filter((name) => !section.includes(`\`${name}`) && !section.includes(`${name}(`) && !section.includes(` ${name}`));
  assert.equal(missing, []);
});

test('the surface every kind imports carries no ranking rules', () => {
  assert.equal(Object.keys(ranking).filter((name) => name in sdk), []);
});

// A backend of its own, in a folder outside the package with no node_modules: it keeps its
// documents in memory and ranks them with the host's rules.
const BACKEND = `import { definePlugin, z } from 'switchboard/sdk';
import * as ranking from 'switchboard/sdk/retrieval';
import { diversifyByFile, queryTerms, rescoreSparse } from 'switchboard/sdk/retrieval';

globalThis.__switchboardRankingOf = ranking;

export default definePlugin({
  settings: z.object({}),
  start() {
    const docs = [];
    return {
      providers: {
        retrieval: {
          async index(_c, documents) {
            for (const d of documents) docs.push({ rowid: docs.length + 1, id: d.id, path: d.metadata?.path ?? null, symbol: null, language: null, text: d.text, bm25: 1 });
            return { indexed: documents.length };
          },
          async search(_c, query, topK) {
            const ranked = diversifyByFile(rescoreSparse(docs, { terms: queryTerms(query) }), topK);
            return ranked.map((s) => ({ id: s.id, score: s.score, text: s.text, signals: s.signals }));
          },
          async delete() { return { deleted: 0 }; },
        },
      },
    };
  },
});
`;

let dir: string;
let k: TestKernel;

test.before(async () => {
  dir = tempDir('switchboard-ranking-plugin-');
  // It publishes the ranking module it got on the process's globals: run in the gateway's process.
  const folder = writePluginFolder(dir, 'ranked-memory', { manifest: { isolation: 'in-process' } });
  writeFileSync(path.join(folder, 'index.js'), BACKEND);
  k = await startTestKernel({ searchPaths: [dir], watch: false });
});

test.after(async () => {
  await k?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a plugin folder outside the package imports switchboard/sdk/retrieval and gets the host build', async () => {
  assert.is(k.kernel.stateOf('ranked-memory'), 'active', k.kernel.get('ranked-memory')?.last_error ?? '');
  const theirs = (globalThis as { __switchboardRankingOf?: typeof ranking }).__switchboardRankingOf;
  assert.ok(theirs, 'the plugin module ran');
  assert.is(theirs!.rescoreSparse, ranking.rescoreSparse, 'one instance: the host build');
  const hits = await k.kernel.withProvider('retrieval', 'ranked-memory', async (r) => {
    await r.index('c', [
      { id: 'test', text: 'export function reloadQueue() {}', metadata: { path: 'test/reload-queue.test.ts' } },
      { id: 'code', text: 'export function reloadQueue() {}', metadata: { path: 'src/reload-queue.ts' } },
      { id: 'other', text: 'unrelated words', metadata: { path: 'src/other.ts' } },
    ]);
    return r.search('c', 'where is the reload queue', 2);
  });
  assert.equal(hits.map((h) => h.id), ['code', 'test']);
});

test.run();
