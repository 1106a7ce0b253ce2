import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { ROOT, json, startGateway, tempDir, until } from '../../support/gateway.js';
import { shellBlocks } from '../../docs/repository-markdown.js';
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

test("the README's judge steps: the gateway selects the self-hosted judge over /api/config, is ready, and a lab run and the reranker A/B succeed", async () => {
  // The tour's judge block (marked for this test), its judge server the one started above on a
  // free port instead of 58180. The gateway is given no port: it shares the server's DATA_DIR, as
  // in the tour, and finds the port the server took there.
  const block = shellBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).find((b) => b.skip?.includes('judge-server-demo.test.ts'));
  assert.ok(block, 'the README has the judge block');
  assert.is(block!.commands[0], 'npx switchboard judge-server');
  const gw = await startGateway({}, { dataDir });
  try {
    // The A/B reranks search results: the tour indexed the repository (step 6) before this block.
    assert.is((await fetch(`${gw.url}/api/index/start`, { method: 'POST' })).status, 202);
    await until(async () => /Indexing completed/.test((await json(await fetch(`${gw.url}/api/index/status`))).status.at(-1) ?? ''), 60_000, 100);
    // Asynchronous: the gateway answers from this process while the commands run.
    const outputs: any[] = [];
    for (const command of block!.commands.slice(1)) {
      const r = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile('bash', ['-o', 'pipefail', '-c', command.replaceAll('localhost:8080', gw.url.replace('http://', ''))], { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? 1 : 0, out: `${stdout}${stderr}` }),
        ),
      );
      assert.is(r.code, 0, `${command}\n${r.out}`);
      outputs.push(JSON.parse(r.out));
    }
    assert.equal(outputs.length, 4);
    assert.equal(outputs[1].map((d: { name: string; ready: boolean }) => [d.name, d.ready]), [['database', true], ['judge-selfhosted', true]], JSON.stringify(outputs[1]));
    // What the tour says the lab run shows, on the comment line under it.
    assert.ok(readFileSync(path.join(ROOT, 'README.md'), 'utf8').includes(`   # ${JSON.stringify(outputs[2])}\n`), JSON.stringify(outputs[2]));
    assert.is(outputs[2].state, 'succeeded', JSON.stringify(outputs[2]));
    assert.is(outputs[2].summary.rows, 1, JSON.stringify(outputs[2]));
    const ab = outputs[3];
    assert.ok(typeof ab.baseline === 'number' && typeof ab.reranked === 'number', JSON.stringify(ab));
    assert.ok(ab.judge.calls > 0, `the judge was asked: ${JSON.stringify(ab)}`);
  } finally {
    // Not gw.close(): that removes the DATA_DIR the next tests keep using.
    await gw.gateway.close();
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
