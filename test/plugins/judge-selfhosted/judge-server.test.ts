import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { tempDir, json, until } from '../../support/gateway.js';
import { writeTinyCheckpoint } from '../../support/judge-checkpoint.js';
import { startJudgeServerProcess, type JudgeServerProcess } from '../../support/judge-server-process.js';

const root = tempDir('switchboard-checkpoints-');
// english: "yes" pushes toward yes, "no" toward no. multilingual: "ja"/"nein", and "yes" weaker.
writeTinyCheckpoint(root, 'english', { yes: [0, 4], no: [4, 0] });
writeTinyCheckpoint(root, 'multilingual', { yes: [0, 2], ja: [0, 4], nein: [4, 0] });
writeTinyCheckpoint(root, 'typed-decisions', { yes: [0, 1] });

let pinned: JudgeServerProcess;
let unpinned: JudgeServerProcess;

test.before(async () => {
  [pinned, unpinned] = await Promise.all([
    startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: root, SELFHOSTED_PINNED_CHECKPOINT: 'english' }),
    startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: root, SELFHOSTED_PINNED_CHECKPOINT: 'none' }),
  ]);
});
test.after(async () => {
  await Promise.all([pinned?.stop(), unpinned?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

const ask = (server: JudgeServerProcess, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${server.url}/v1/systemone`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
const question = (instructions = 'is it so') => ({ type: 'noul', instructions });

test('health answers only once a checkpoint is resident, and lists it', async () => {
  const before = await fetch(`${unpinned.url}/health`);
  assert.is(before.status, 503, 'an unpinned server holds no checkpoint until asked');
  assert.equal((await json(before)).loaded, []);
  const health: { loaded: string[] } = await until(async () => {
    const res = await fetch(`${pinned.url}/health`);
    return res.status === 200 ? json(res) : undefined;
  });
  assert.equal(health.loaded, ['english']);
});

test('a pinned server answers its checkpoint and refuses any other model name with 422', async () => {
  let res = await ask(pinned, { model: 'english', state: 'yes yes yes', questions: { q: question() } });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.model, 'english');
  assert.ok(body.answers.q.noul > 0.8, `yes-heavy state: ${body.answers.q.noul}`);
  assert.is(body.answers.q.type, 'noul');
  res = await ask(pinned, { model: 'english', state: 'no no no', questions: { q: question() } });
  assert.ok((await json(res)).answers.q.noul < 0.2);
  for (const model of ['multilingual', 'gpt-4o', 'typed-decisions']) {
    res = await ask(pinned, { model, state: 'yes', questions: { q: question() } });
    assert.is(res.status, 422, model);
    assert.match((await json(res)).detail, /pinned to "english"/);
  }
});

test('more than 8 questions answer 413; 8 are answered', async () => {
  const questions = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, question()]));
  assert.is((await ask(pinned, { model: 'english', state: 'yes', questions: questions(9) })).status, 413);
  const res = await ask(pinned, { model: 'english', state: 'yes', questions: questions(8) });
  assert.is(res.status, 200);
  assert.is(Object.keys((await json(res)).answers).length, 8);
});

test('the english checkpoint reads at most 512 tokens of a state', async () => {
  const state = `${'filler '.repeat(600)}${'yes '.repeat(300)}`;
  const res = await ask(pinned, { model: 'english', state, questions: { q: question('unknown words') } });
  const p = (await json(res)).answers.q.noul;
  assert.ok(Math.abs(p - 0.5) < 1e-6, `only fillers were read: ${p}`);
  // The multilingual checkpoint has no such cut: the same state reaches its "yes" tokens.
  const other = await ask(unpinned, { model: 'multilingual', state, questions: { q: question('unknown words') } });
  assert.ok((await json(other)).answers.q.noul > 0.55);
});

test('an unpinned server routes by the language of the state, one checkpoint resident at a time', async () => {
  const german = 'Das ist ein sehr schöner Tag und ich gehe heute mit meinem Hund im Park spazieren, ja';
  let res = await ask(unpinned, { model: 'auto', state: german, questions: { q: question() } });
  assert.is(res.status, 200);
  assert.is((await json(res)).model, 'multilingual');
  assert.equal((await json(await fetch(`${unpinned.url}/health`))).loaded, ['multilingual']);
  const english = 'This is a very nice day and I am walking my dog in the park today, yes';
  res = await ask(unpinned, { model: 'auto', state: english, questions: { q: question() } });
  assert.is((await json(res)).model, 'english');
  assert.equal((await json(await fetch(`${unpinned.url}/health`))).loaded, ['english'], 'max_loaded = 1');
  res = await ask(unpinned, { model: 'typed-decisions', state: english, questions: { q: question() } });
  assert.is((await json(res)).model, 'typed-decisions', 'a known checkpoint name is served as asked');
});

test('metrics: inference time by checkpoint and outcome, and the resident gauge', async () => {
  const text = await (await fetch(`${pinned.url}/metrics`)).text();
  assert.match(text, /selfhosted_inference_seconds_count\{checkpoint="english",outcome="ok"\} [1-9]/);
  assert.match(text, /selfhosted_checkpoint_resident\{checkpoint="english"\} 1/);
  assert.match(text, /selfhosted_checkpoint_resident\{checkpoint="multilingual"\} 0/);
});

test('bad requests: 400 for malformed bodies, 415 for other content types, 404 elsewhere', async () => {
  assert.is((await ask(pinned, 'not json')).status, 400);
  assert.is((await ask(pinned, { model: 'english', state: 'x', questions: {} })).status, 400);
  assert.is((await ask(pinned, { model: 'english', state: 'x', questions: { q: { type: 'bool', instructions: 'x' } } })).status, 400);
  assert.is((await ask(pinned, { model: 'english', state: 'x', questions: { q: question() } }, { 'content-type': 'text/plain' })).status, 415);
  assert.is((await fetch(`${pinned.url}/nowhere`)).status, 404);
  assert.is((await fetch(`${pinned.url}/health`)).status, 200, 'still serving');
});

test('the server stops cleanly on SIGTERM', async () => {
  const extra = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: root, SELFHOSTED_PINNED_CHECKPOINT: 'none' });
  assert.is(await extra.stop(), 0);
});

test('a deeply nested state answers 422 naming the limit, never a 500', async () => {
  const depth = 100_000;
  const body = `{"model":"english","state":${'['.repeat(depth)}${']'.repeat(depth)},"questions":{"q":{"type":"noul","instructions":"is it so"}}}`;
  const res = await ask(pinned, body);
  assert.is(res.status, 422);
  const error = await json(res);
  assert.is(error.code, 'validation_error');
  assert.match(error.detail, /^state: nested deeper than 64 levels/);
  // Still serving afterwards.
  assert.is((await ask(pinned, { model: 'english', state: { a: { b: ['yes'] } }, questions: { q: question() } })).status, 200);
});

test('a body over 1 MB answers 413 with its code instead of resetting the connection', async () => {
  const big = JSON.stringify({ model: 'english', state: 'yes '.repeat(400_000), questions: { q: question() } });
  assert.ok(big.length > 1024 * 1024);
  const res = await ask(pinned, big);
  assert.is(res.status, 413);
  assert.equal(await json(res), { detail: 'body too large: the limit is 1048576 bytes', code: 'payload_too_large' });
  assert.is((await ask(pinned, { model: 'english', state: 'yes', questions: { q: question() } })).status, 200, 'the next request is served');
});

test("every error body is {detail, code} with one of the server's codes and its status", async () => {
  const cases: Array<[Promise<Response>, number, string]> = [
    [fetch(`${pinned.url}/nowhere`), 404, 'route_not_found'],
    [fetch(`${pinned.url}/v1/systemone`), 405, 'method_not_allowed'],
    [ask(pinned, 'x', { 'content-type': 'text/plain' }), 415, 'json_body_required'],
    [ask(pinned, '{not json'), 400, 'validation_error'],
    [ask(pinned, { model: 'english', questions: {} }), 400, 'validation_error'],
    [ask(pinned, { model: 'gpt-4o', state: 'yes', questions: { q: question() } }), 422, 'judge_model_not_served'],
    [ask(pinned, { model: 'english', state: 'yes', questions: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`q${i}`, question()])) }), 413, 'payload_too_large'],
  ];
  for (const [pending, status, code] of cases) {
    const res = await pending;
    assert.is(res.status, status, code);
    const body = await json(res);
    assert.equal(Object.keys(body).sort(), ['code', 'detail'], JSON.stringify(body));
    assert.is(body.code, code);
    assert.ok(body.detail.length > 0);
  }
});

test.run();
