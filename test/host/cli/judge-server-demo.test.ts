import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, startGateway, tempDir, until } from '../../support/gateway.js';
import { startJudgeServerProcess, type JudgeServerProcess } from '../../support/judge-server-process.js';

// Out of the box, `switchboard judge-server` writes a demo checkpoint under DATA_DIR and answers;
// the gateway's self-hosted judge is then ready and the lab runs on it.

const dataDir = tempDir('switchboard-judge-demo-');
const checkpoints = path.join(dataDir, 'judge-checkpoints');
let server: JudgeServerProcess | undefined;

const ask = (url: string, state: string) =>
  fetch(`${url}/v1/systemone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'english', state, questions: { supported: { type: 'noul', instructions: 'Is the claim supported?' } } }),
  });

test.after(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('with no settings the judge server writes the demo checkpoints under DATA_DIR and answers', async () => {
  server = await startJudgeServerProcess({ DATA_DIR: dataDir });
  assert.match(server.output(), /demo checkpoint written/);
  assert.equal(readdirSync(checkpoints).sort(), ['english', 'multilingual', 'typed-decisions']);
  for (const name of ['english', 'multilingual', 'typed-decisions']) {
    assert.ok(existsSync(path.join(checkpoints, name, 'model.onnx')), name);
    assert.is(JSON.parse(readFileSync(path.join(checkpoints, name, 'checkpoint.json'), 'utf8')).demo, true);
  }
  // The pinned checkpoint (english) is loaded at start; /health answers 200 once it is resident.
  await until(async () => (await fetch(`${server!.url}/health`)).status === 200, 20_000, 50);
  assert.equal((await json(await fetch(`${server.url}/health`))).loaded, ['english']);
  const yes = await json(await ask(server.url, 'Yes, the quote supports it: correct.'));
  const no = await json(await ask(server.url, 'No, that is wrong and not in the quote.'));
  assert.ok(yes.answers.supported.noul > 0.5, JSON.stringify(yes));
  assert.ok(no.answers.supported.noul < 0.5, JSON.stringify(no));
});

test('the gateway with the self-hosted judge selected is ready and a lab run succeeds on the demo checkpoint', async () => {
  const gw = await startGateway({ SELFHOSTED_HTTP_PORT: String(server!.port), SYSTEM_ONE__PROVIDER: 'selfhosted', SYSTEM_ONE__MODEL: 'english' });
  try {
    const ready = await fetch(`${gw.url}/api/ready`);
    assert.is(ready.status, 200, JSON.stringify(await ready.clone().json()));
    const res = await fetch(`${gw.url}/api/lab/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rows: [{ question: 'Is the reload queue coalesced?', quote: 'Yes: reloads of one plugin are coalesced.', expected_answer: 'yes' }] }),
    });
    const run = await json(res);
    assert.is(res.status, 201, JSON.stringify(run));
    assert.is(run.state, 'succeeded', JSON.stringify(run));
    assert.is(run.results.length, 1);
  } finally {
    await gw.close();
  }
});

test('a restart keeps a checkpoint already there', async () => {
  await server!.stop();
  const meta = path.join(checkpoints, 'english', 'checkpoint.json');
  writeFileSync(meta, JSON.stringify({ yes_index: 1, mine: true }));
  server = await startJudgeServerProcess({ DATA_DIR: dataDir });
  assert.not.match(server.output(), /demo checkpoint written/);
  assert.equal(JSON.parse(readFileSync(meta, 'utf8')), { yes_index: 1, mine: true });
  await until(async () => (await fetch(`${server!.url}/health`)).status === 200, 20_000, 50);
});

test('a checkpoints directory the operator chose is never written', async () => {
  await server!.stop();
  const chosen = path.join(dataDir, 'chosen');
  mkdirSync(chosen);
  server = await startJudgeServerProcess({ DATA_DIR: dataDir, SELFHOSTED_CHECKPOINTS_DIR: chosen });
  assert.equal(readdirSync(chosen), []);
  await until(() => /pinned checkpoint failed to load/.test(server!.output()), 20_000, 50);
  assert.is((await fetch(`${server.url}/health`)).status, 503);
});

test.run();
