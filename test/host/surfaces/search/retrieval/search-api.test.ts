import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { search, smallRepo, startRun, waitForRun } from '../search-repo-fixture.js';

const demo = smallRepo();
// Configured, never indexed.
const fresh = smallRepo();
let gw: TestGateway;

test.before(async () => {
  gw = await startGateway({ REPOS: JSON.stringify({ demo, fresh }), REPO: 'demo' });
  await startRun(gw.url);
  await waitForRun(gw.url, 'demo');
});
test.after(async () => {
  await gw.close();
  removeDir(demo);
  removeDir(fresh);
});

test('invalid parameters answer 422 naming the field', async () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{}, /^q: /],
    [{ q: '' }, /^q: q cannot be empty/],
    [{ q: '   ' }, /^q: q cannot be empty/],
    [{ q: 'x'.repeat(1001) }, /^q: q is longer than 1000 characters/],
    [{ q: 'x', top_k: '0' }, /^top_k: /],
    [{ q: 'x', top_k: '101' }, /^top_k: /],
    [{ q: 'x', top_k: 'ten' }, /^top_k: /],
    [{ q: 'x', top_k: '1.5' }, /^top_k: /],
    [{ q: 'x', top_k: '-3' }, /^top_k: /],
  ];
  for (const [params, detail] of cases) {
    const res = await search(gw.url, params);
    assert.is(res.status, 422, JSON.stringify(params));
    assert.match(res.body.detail, detail);
    assert.is(res.body.code, 'validation_error');
  }
  assert.is((await search(gw.url, { q: 'x'.repeat(1000) })).status, 200, '1000 characters are fine');
  assert.is((await search(gw.url, { q: 'queue', top_k: '100' })).body.top_k, 100);
});

test('FTS5 syntax characters and words never cause an error; only the query language\'s own faults answer 400', async () => {
  const texts = ['(', ')', '*', ':', 'NEAR', 'NEAR(reload queue, 2)', 'reload AND', 'OR OR', 'NOT', '^queue', '"reload queue"', 'queue*', 'a"b(c)*d:e', "'; DROP TABLE docs; --", '\\', '%', '🙂 emoji', 'ünïcödé'];
  for (const q of texts) {
    const res = await search(gw.url, { q });
    assert.is(res.status, 200, `${q}: ${JSON.stringify(res.body)}`);
    assert.ok(Array.isArray(res.body.results));
  }
  // Query language (docs/search/code-search.md): an unclosed phrase, or filters and exclusions with nothing to find.
  for (const q of ['"', '-queue', 'path:core']) {
    const res = await search(gw.url, { q });
    assert.is(res.status, 400, q);
    assert.is(res.body.code, 'query_invalid', q);
  }
  assert.is((await search(gw.url, { q: '"reload queue"' })).body.results[0].path, 'core/kernel/reload-queue.ts');
  assert.is((await search(gw.url, { q: 'ReloadQueue.request()' })).body.results[0].path, 'core/kernel/reload-queue.ts');
});

test('code ranks over prose for the same words, and a repository never indexed answers no results', async () => {
  const res = await search(gw.url, { q: 'reload queue kernel' });
  assert.is(res.body.results[0].path, 'core/kernel/reload-queue.ts');
  assert.ok(res.body.results.some((r: any) => r.path === 'docs/guide.md'));
  // The same words in a repository that was never indexed: no results, not an error.
  const never = await search(gw.url, { q: 'reload queue kernel', repo: 'fresh' });
  assert.is(never.status, 200, JSON.stringify(never.body));
  assert.is(never.body.repo, 'fresh');
  assert.equal(never.body.results, []);
});

test('the endpoints are in /openapi.json with their schemas', async () => {
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  const searchOp = doc.paths['/api/search'].get;
  assert.equal(searchOp.parameters.map((p: any) => p.name).sort(), ['q', 'repo', 'top_k', 'trace']);
  assert.ok(searchOp.responses['200'].content['application/json'].schema);
  assert.ok(searchOp.responses['422']);
  const start = doc.paths['/api/index/start'].post;
  assert.ok(start.responses['202'].content['application/json'].schema);
  assert.ok(start.responses['409']);
  assert.ok(start.requestBody.content['application/json'].schema);
  const status = doc.paths['/api/index/status'].get;
  assert.ok(status.responses['200'].content['application/json'].schema);
});

test('GET /api/editor/settings keeps working', async () => {
  const res = await fetch(`${gw.url}/api/editor/settings`);
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.port, 4440);
  assert.is(body.enabled, true);
  assert.is(body.bind, 'local');
});

test('with no setting at all, the switchboard repository is the package root and the tour question finds the reload queue', async () => {
  const bare = await startGateway({});
  try {
    assert.is((await startRun(bare.url)).status, 202);
    const status = await waitForRun(bare.url, 'switchboard', 120_000);
    assert.is(status.run.state, 'finished', status.status.join('\n'));
    const res = await search(bare.url, { q: 'where is the reload queue coalesced' });
    assert.is(res.body.repo, 'switchboard');
    assert.is(res.body.results[0].path, 'core/kernel/reload-queue.ts');
  } finally {
    await bare.close();
  }
});

test.run();
