import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { conformance, startTestKernel } from 'switchboard/sdk/testing';
import plugin from '../../../docs/examples/keyword-retrieval/index.js';
import { ROOT, json, startGateway } from '../../support/gateway.js';

const exampleDir = path.join(ROOT, 'docs/examples/keyword-retrieval');

test('the example imports nothing of ours but switchboard/sdk', () => {
  const source = readFileSync(path.join(exampleDir, 'index.ts'), 'utf8');
  const imports = [...source.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]);
  assert.equal(imports, ['switchboard/sdk']);
});

for (const c of conformance.retrieval({ plugin })) test(c.name, c.run);

test('the SDK test kernel loads it from a plugins directory', async () => {
  const k = await startTestKernel({ searchPaths: [path.join(ROOT, 'docs/examples')] });
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

test('a gateway finds it on PLUGINS_PATH and serves /api/search through it', async () => {
  const gw = await startGateway({ PLUGINS_PATH: path.join(ROOT, 'docs/examples'), RETRIEVAL_BACKEND: 'keyword-retrieval' });
  try {
    const plugins = (await json(await fetch(`${gw.url}/plugins`))).plugins;
    const entry = plugins.find((p: any) => p.id === 'keyword-retrieval');
    assert.is(entry.state, 'active');
    await gw.gateway.kernel.withProvider('retrieval', 'keyword-retrieval', (r) => r.index('switchboard', [{ id: 'readme', text: 'drop a manifest', metadata: { path: 'README.md', start_line: 3, end_line: 4 } }]));
    const res = await json(await fetch(`${gw.url}/api/search?q=manifest`));
    assert.is(res.repo, 'switchboard');
    assert.is(res.top_k, 10, 'top_k defaults to FINAL_K');
    const { score, ...hit } = res.results[0];
    assert.equal(hit, { path: 'README.md', start_line: 3, end_line: 4, snippet: 'drop a manifest' });
    assert.type(score, 'number');
    assert.ok(score > 0, `a matching document scores above zero (got ${score})`);
  } finally {
    await gw.close();
  }
});

test.run();
