import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { baseManifest, json, startGateway, until, writeFixturePlugin, writeManifest, type TestGateway } from '../../../support/gateway.js';

let gw: TestGateway;
let manifestFile: string;

const plugin = async (id: string) => {
  const body = await json<{ plugins: any[] }>(await fetch(`${gw.url}/plugins`));
  return body.plugins.find((p) => p.id === id);
};
const search = async (q: string) => json<{ results: Array<{ path: string; snippet: string }> }>(await fetch(`${gw.url}/api/search?q=${encodeURIComponent(q)}&top_k=1`));

test.before(async () => {
  gw = await startGateway({ RETRIEVAL_BACKEND: 'echo' });
});
test.after(async () => {
  await gw.close();
});

// How fast a dropped manifest goes live is a figure of the machine: `npm run bench -- kernel`
// measures it (reload latency). Here only the behaviour, under a deadline no loaded machine misses.
test('a dropped manifest becomes active in /plugins without a restart', async () => {
  assert.is(await plugin('echo'), undefined);
  manifestFile = writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
  const active = await until(async () => {
    const p = await plugin('echo');
    return p?.state === 'active' ? p : undefined;
  }, 30_000, 20);
  assert.is(active.generation, 1);
  assert.equal(active.kinds, ['retrieval']);
  assert.is(active.version, '1.0.0');
  const found = await search('hello');
  assert.is(found.results[0]!.path, 'generation/1.txt');
});

test('an edited manifest serves on a new generation while a slow call finishes on the old one', async () => {
  // Slow enough that the new generation is up (and this call still draining) on a loaded machine.
  const slow = search('slow:6000');
  await new Promise((r) => setTimeout(r, 150));
  writeManifest(manifestFile, { ...baseManifest('echo'), entry: 'entry.mjs', version: '1.1.0' });
  const p = await until(async () => {
    const v = await plugin('echo');
    return v?.generation === 2 ? v : undefined;
  }, 6000, 20);
  assert.is(p.version, '1.1.0');
  const draining = p.generations.find((g: any) => g.number === 1);
  assert.ok(draining, 'generation 1 is still listed while it drains');
  assert.is(draining.state, 'draining');
  assert.is(draining.leases, 1);
  const fresh = await search('fast');
  assert.is(fresh.results[0]!.path, 'generation/2.txt');
  const finished = await slow;
  assert.is(finished.results[0]!.path, 'generation/1.txt', 'the slow call completed on the generation it started on');
  const after = await until(async () => {
    const v = await plugin('echo');
    return v.generations.length === 1 ? v : undefined;
  });
  assert.is(after.generations[0].number, 2);
});

test('a broken manifest leaves the last good generation serving and shows diagnostics', async () => {
  writeManifest(manifestFile, { ...baseManifest('echo'), entry: 'entry.mjs', version: 'not-semver', surprise: true });
  const p = await until(async () => {
    const v = await plugin('echo');
    return v?.diagnostics?.length ? v : undefined;
  }, 15_000, 20);
  const codes = p.diagnostics.map((d: any) => d.code);
  assert.ok(codes.includes('invalid-semver'), codes.join(','));
  assert.ok(codes.includes('unknown-key'), codes.join(','));
  assert.is(p.state, 'active');
  assert.is(p.generation, 2);
  assert.match(p.last_error, /reload failed/);
  assert.is((await search('still')).results[0]!.path, 'generation/2.txt');

  writeFileSync(manifestFile, '{ "id": "echo", ');
  const q = await until(async () => {
    const v = await plugin('echo');
    return v?.diagnostics?.some((d: any) => d.code === 'invalid-json') ? v : undefined;
  }, 15_000, 20);
  assert.is(q.generation, 2);
  assert.is((await search('still')).results[0]!.path, 'generation/2.txt');
});

test('a removed manifest drains and disappears', async () => {
  writeManifest(manifestFile, { ...baseManifest('echo'), entry: 'entry.mjs', version: '1.2.0' });
  await until(async () => (await plugin('echo'))?.generation === 3, 15_000, 20);
  rmSync(path.dirname(manifestFile), { recursive: true, force: true });
  await until(async () => (await plugin('echo')) === undefined, 15_000, 20);
  const res = await fetch(`${gw.url}/api/search?q=x`);
  assert.is(res.status, 503);
  const body = await json(res);
  assert.match(body.detail, /echo/);
});

test.run();
