import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { judgeConformance, startPlugin, type StartedPlugin } from '../../../core/testing/index.js';
import { SystemOneError } from '../../../core/sdk/judge/index.js';
import type { JudgeProvider, JudgeRequest } from '../../../core/sdk/contracts/judge.js';
import hosted from '../../../plugins/judge-hosted/index.js';
import { startSystemOneFake } from '../../fakes/system-one-fake.js';
import { until } from '../../support/gateway.js';

type Fake = Awaited<ReturnType<typeof startSystemOneFake>>;
let fake: Fake;
let plugin: StartedPlugin;
const judge = () => plugin.instance.providers.judge as JudgeProvider;
const QUESTIONS: JudgeRequest['questions'] = {
  reader_question: { type: 'noul', instructions: 'Would a reader ask this?' },
  answer_supported: { type: 'noul', instructions: 'Is the answer supported?', criteria: { true: 'yes', false: 'no' } },
};
const ask = (extra: Partial<JudgeRequest> = {}) => judge().ask({ model: 'm-1', state: { q: 'x' }, questions: QUESTIONS, timeoutMs: 5000, maxRetries: 3, ...extra });

async function failure(promise: Promise<unknown>): Promise<SystemOneError> {
  try {
    await promise;
  } catch (err) {
    assert.instance(err, SystemOneError);
    return err as SystemOneError;
  }
  throw new Error('expected a SystemOneError');
}

test.before(async () => {
  fake = await startSystemOneFake();
  plugin = await startPlugin(hosted, { pluginId: 'judge-hosted', env: { SYSTEM_ONE__HOSTED_URL: fake.url, HOSTED_JUDGE_API_KEY: 'hk_secret_1' } });
});
test.after(async () => {
  await plugin?.stop();
  await fake?.close();
});
test.before.each(() => {
  fake.reset();
});

test('asks in the wire format with the bearer credential and returns one probability per question', async () => {
  const answer = await ask();
  assert.equal(answer.answers, { reader_question: 0.8, answer_supported: 0.8 });
  assert.equal(answer.usage, { input_tokens: 10, output_tokens: 1 });
  assert.is(fake.requests.length, 1);
  const [req] = fake.requests;
  assert.is(req!.path, '/v1/systemone');
  assert.is(req!.headers.authorization, 'Bearer hk_secret_1');
  assert.equal(req!.body, { model: 'm-1', state: { q: 'x' }, questions: QUESTIONS });
});

test('408, 5xx and 529 are retried until an answer comes', async () => {
  fake.script({ status: 503 }, { status: 408 }, { status: 529, headers: { 'retry-after-ms': '10' } });
  const answer = await ask();
  assert.is(answer.answers.reader_question, 0.8);
  assert.is(fake.requests.length, 4);
});

test('retry-after-ms wins over Retry-After and is honoured', async () => {
  fake.script({ status: 429, headers: { 'retry-after-ms': '150', 'retry-after': '30' } });
  await ask();
  assert.is(fake.requests.length, 2);
  const gap = fake.requests[1]!.at - fake.requests[0]!.at;
  assert.ok(gap >= 140, `waited ${gap} ms for a 150 ms hint`);
  // Against the hint it must not follow: a fraction of it, not a figure of this machine's pace.
  assert.ok(gap < 30_000 / 4, 'the 30 s Retry-After was not used');
});

test('Retry-After as an HTTP date is honoured', async () => {
  fake.script({ status: 503, headers: { 'retry-after': new Date(Date.now() + 1200).toUTCString() } });
  await ask();
  const gap = fake.requests[1]!.at - fake.requests[0]!.at;
  assert.ok(gap >= 100, `waited ${gap} ms for an HTTP-date hint`);
});

test('a hint past the budget is not slept: the call fails at once with the last outcome', async () => {
  fake.script({ status: 429, headers: { 'retry-after': '30' } });
  const started = Date.now();
  const err = await failure(ask({ timeoutMs: 2000 }));
  assert.is(err.outcome, 'rate_limited');
  assert.is(err.status, 429);
  assert.is(fake.requests.length, 1);
  assert.ok(Date.now() - started < 30_000 / 4, 'did not sleep toward the 30 s hint');
});

test('a slow answer past the budget is a timeout, and the call never outlives the budget', async () => {
  const answerMs = 20_000;
  fake.script({ delayMs: answerMs });
  const started = Date.now();
  const err = await failure(ask({ timeoutMs: 300 }));
  assert.is(err.outcome, 'timeout');
  // Against the answer it must not wait for: a fraction of it, whatever this machine's pace.
  assert.ok(Date.now() - started < answerMs / 4, 'the call ended with its budget, not with the slow answer');
});

test('max_retries bounds the attempts; 0 disables retries', async () => {
  fake.script({ status: 500 });
  let err = await failure(ask({ maxRetries: 0 }));
  assert.is(err.outcome, 'http_error');
  assert.is(fake.requests.length, 1);
  fake.reset();
  fake.script({ status: 500, headers: { 'retry-after-ms': '1' } }, { status: 500, headers: { 'retry-after-ms': '1' } }, { status: 500 });
  err = await failure(ask({ maxRetries: 2 }));
  assert.is(fake.requests.length, 3, 'first attempt and two retries');
  assert.is(err.status, 500);
});

test('4xx other than 408 and 429 is not retried', async () => {
  for (const status of [400, 401, 404, 422]) {
    fake.reset();
    fake.script({ status, body: { error: 'no' } });
    const err = await failure(ask());
    assert.is(err.outcome, 'http_error', String(status));
    assert.is(fake.requests.length, 1, String(status));
  }
});

test('malformed answers are invalid responses, never a default answer', async () => {
  const bad = [
    { raw: 'not json' },
    { body: { model: 'm', answers: { reader_question: { type: 'noul', noul: 1.5 }, answer_supported: { type: 'noul', noul: 0.1 } }, usage: { input_tokens: 1, output_tokens: 1 } } },
    { body: { model: 'm', answers: { reader_question: { type: 'noul', noul: 0.5 } }, usage: { input_tokens: 1, output_tokens: 1 } } },
    { body: { model: 'm', answers: { reader_question: { type: 'noul', noul: 0.5 }, answer_supported: { type: 'noul', noul: 0.5 }, extra: { type: 'noul', noul: 0.5 } }, usage: { input_tokens: 1, output_tokens: 1 } } },
    { body: { model: 'm', answers: { reader_question: { type: 'bool', noul: 0.5 }, answer_supported: { type: 'noul', noul: 0.5 } }, usage: { input_tokens: 1, output_tokens: 1 } } },
    { body: { model: 'm', answers: { reader_question: { type: 'noul', noul: '0.5' }, answer_supported: { type: 'noul', noul: 0.5 } }, usage: { input_tokens: 1, output_tokens: 1 } } },
  ];
  for (const reply of bad) {
    fake.reset();
    fake.script(reply);
    const err = await failure(ask());
    assert.is(err.outcome, 'invalid_response', JSON.stringify(reply).slice(0, 80));
    assert.is(fake.requests.length, 1, 'an invalid answer is not retried');
  }
});

test('a budget that ends during a backoff sleep answers the failure being retried, not a timeout', async () => {
  fake.script({ status: 503, headers: { 'retry-after-ms': '300' } });
  const asked = Date.now();
  const pending = failure(ask({ timeoutMs: 1000 }));
  await until(() => fake.requests.length === 1, 5000, 5);
  // Let the client read the 503 and plan its 300 ms sleep (on a loaded machine the answer
  // reaches it a little after the fake recorded the request).
  await new Promise((resolve) => setTimeout(resolve, 50));
  // A busy event loop: the sleep, planned to end inside the budget, ends past it.
  const blockedUntil = asked + 1150;
  while (Date.now() < blockedUntil);
  const err = await pending;
  assert.is(err.outcome, 'http_error', err.message);
  assert.is(err.status, 503);
  assert.match(err.message, /budget ended while waiting to retry/);
  assert.is(fake.requests.length, 1, 'no attempt is made past the budget');
});

test('a backend that is not there is unavailable after its retries', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const closed = await startPlugin(hosted, { pluginId: 'judge-hosted', env: { SYSTEM_ONE__HOSTED_URL: `http://127.0.0.1:${port}`, HOSTED_JUDGE_API_KEY: 'k' } });
  try {
    // One retry (a sleep of at most 500 ms) in a budget wide enough that a loaded machine's slow
    // refusals never turn the last attempt into a timeout.
    const err = await failure((closed.instance.providers.judge as JudgeProvider).ask({ state: 's', questions: QUESTIONS, timeoutMs: 8000, maxRetries: 1 }));
    assert.is(err.outcome, 'unavailable', err.message);
    assert.match(err.message, /ECONNREFUSED/);
  } finally {
    await closed.stop();
  }
});

test('a cancelled caller gets cancelled', async () => {
  fake.script({ delayMs: 2000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const err = await failure(ask({ signal: controller.signal }));
  assert.is(err.outcome, 'cancelled');
});

test('a missing credential fails before any request is sent', async () => {
  const keyless = await startPlugin(hosted, { pluginId: 'judge-hosted', env: { SYSTEM_ONE__HOSTED_URL: fake.url } });
  try {
    const err = await failure((keyless.instance.providers.judge as JudgeProvider).ask({ state: 's', questions: QUESTIONS }));
    assert.is(err.outcome, 'unavailable');
    assert.match(err.message, /HOSTED_JUDGE_API_KEY/);
    assert.is(fake.requests.length, 0);
    assert.is((await keyless.instance.health!())?.ok, false);
    const readiness = await (keyless.instance.providers.judge as JudgeProvider).readiness!();
    assert.equal([readiness.ready, readiness.detail], [false, 'HOSTED_JUDGE_API_KEY is not set in the server environment']);
    assert.match(readiness.hint ?? '', /HOSTED_JUDGE_API_KEY/);
  } finally {
    await keyless.stop();
  }
});

test('the judge contract (1.2): reached over the network, ready once its credential is set', async () => {
  assert.is(judge().served, 'network');
  assert.equal(await judge().readiness!(), { ready: true });
  assert.is(fake.requests.length, 0, 'readiness sends nothing to the backend');
});

// The SDK's judge suite against the fake backend (its URL is known once the fake listens).
const conformanceEnv: Record<string, string> = { HOSTED_JUDGE_API_KEY: 'hk_secret_1' };
test.before(() => {
  conformanceEnv.SYSTEM_ONE__HOSTED_URL = fake.url;
});
for (const c of judgeConformance({ plugin: hosted, pluginId: 'judge-hosted', env: conformanceEnv })) test(c.name, () => c.run());

test.run();
