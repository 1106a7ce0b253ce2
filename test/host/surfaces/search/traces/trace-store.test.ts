import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compactUtc, TraceStore } from '../../../../../host/surfaces/search/traces/trace-store.js';

const root = mkdtempSync(path.join(tmpdir(), 'switchboard-traces-'));
let n = 0;
function freshStore(retention = 50, secrets: string[] = []) {
  const dataDir = path.join(root, `d${n++}`);
  let clock = Date.parse('2026-11-23T04:00:00.000Z');
  const store = new TraceStore({ dataDir, retention: () => retention, secretValues: () => secrets, now: () => new Date((clock += 1500)) });
  return { store, dataDir };
}

test('a finished trace is a JSON file named <UTC stamp>_<8 hex>.json with the documented fields', async () => {
  const { store, dataDir } = freshStore();
  const trace = store.start('switchboard', 'where is the reload queue?');
  trace.event('search.results', { paths: ['core/kernel/reload-queue.ts'] });
  const rel = (await trace.finish())!;
  assert.match(rel, /^out\/switchboard\/traces\/\d{8}T\d{6}Z_[0-9a-f]{8}\.json$/);
  const file = path.join(dataDir, rel);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(Object.keys(doc), ['repo', 'id', 'question', 'started_at', 'finished_at', 'events']);
  assert.is(doc.repo, 'switchboard');
  assert.is(doc.question, 'where is the reload queue?');
  assert.is(path.basename(rel), `${compactUtc(new Date(doc.started_at))}_${doc.id}.json`);
  assert.is(doc.events[0].kind, 'search.results');
  assert.ok(Date.parse(doc.finished_at) >= Date.parse(doc.started_at));
  assert.is(statSync(file).mode & 0o777, 0o600);
});

test('only the TRACE_RETENTION newest traces are kept, and the listing is newest first', async () => {
  const { store } = freshStore(3);
  const written: string[] = [];
  for (let i = 0; i < 5; i++) {
    const t = store.start('r1', `q${i}`);
    written.push((await t.finish())!);
  }
  const files = await store.list('r1');
  assert.equal(files.map((f) => f.path), written.slice(2).reverse());
  const latest = await store.latest('r1');
  assert.ok(latest.ok);
  if (latest.ok) assert.is(latest.trace.question, 'q4');
});

test('TRACE_RETENTION=0 writes nothing', async () => {
  const { store, dataDir } = freshStore(0);
  assert.is(await store.start('r', 'q').finish(), null);
  assert.equal(await store.list('r'), []);
  assert.not.ok(existsSync(path.join(dataDir, 'out')), 'no folder created either');
});

test('secrets never reach a trace: secret-named fields and known secret values are masked', async () => {
  const { store, dataDir } = freshStore(50, ['sk-live-123456789']);
  const t = store.start('r', 'question mentioning sk-live-123456789');
  t.event('llm.request', { headers: { authorization: 'Bearer abc' }, api_key: 'xyz', body: 'key=sk-live-123456789 end', nested: [{ token: 't' }] });
  const text = readFileSync(path.join(dataDir, (await t.finish())!), 'utf8');
  assert.not.match(text, /sk-live-123456789|Bearer abc|"xyz"|"t"/);
  const doc = JSON.parse(text);
  assert.is(doc.question, 'question mentioning ***');
  assert.is(doc.events[0].data.api_key, '***');
  assert.is(doc.events[0].data.headers.authorization, '***');
  assert.is(doc.events[0].data.body, 'key=*** end');
});

test('latest answers a small error when there is no readable trace, skipping broken files and symlinks', async () => {
  const { store, dataDir } = freshStore();
  const none = await store.latest('empty');
  assert.equal(none, { ok: false, code: 'trace_not_found', detail: 'no readable trace for repository "empty"' });
  const good = await store.start('r', 'good').finish();
  const dir = path.join(dataDir, 'out/r/traces');
  writeFileSync(path.join(dir, '29991231T235959Z_deadbeef.json'), '{"half":');
  const outside = path.join(root, 'outside.json');
  writeFileSync(outside, JSON.stringify({ events: [], question: 'outside' }));
  symlinkSync(outside, path.join(dir, '29991231T235959Z_cafebabe.json'));
  const latest = await store.latest('r');
  assert.ok(latest.ok);
  if (latest.ok) assert.is(latest.trace.question, 'good');
  const listed = (await store.list('r')).map((f) => f.name);
  assert.not.ok(listed.includes('29991231T235959Z_cafebabe.json'), 'a symlink is not listed');
  assert.ok(good);
});

test('a repository name that is not plain is refused before any path is built', () => {
  const { store } = freshStore();
  for (const bad of ['../x', '/etc', 'a/b', '..', '']) assert.throws(() => store.dirOf(bad), /not a plain repository name/);
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
