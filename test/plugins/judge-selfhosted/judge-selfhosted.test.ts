import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { judgeConformance, startPlugin, type StartedPlugin } from '../../../core/testing/index.js';
import { SystemOneError } from '../../../core/sdk/judge/index.js';
import type { JudgeProvider, JudgeRequest } from '../../../core/sdk/contracts/judge.js';
import selfhosted from '../../../plugins/judge-selfhosted/index.js';
import { freePort, tempDir } from '../../support/gateway.js';
import { writeTinyCheckpoint } from '../../support/judge-checkpoint.js';
import { startJudgeServerProcess, type JudgeServerProcess } from '../../support/judge-server-process.js';

// The real judge server (switchboard judge-server) with a tiny checkpoint that scores "yes" high.
const checkpoints = tempDir('switchboard-checkpoints-');
writeTinyCheckpoint(checkpoints, 'english', { yes: [0, 4], no: [4, 0] });
let server: JudgeServerProcess;
let plugin: StartedPlugin;
const judge = (p: StartedPlugin) => p.instance.providers.judge as JudgeProvider;
const QUESTIONS: JudgeRequest['questions'] = { reader_question: { type: 'noul', instructions: 'Would a reader ask this?' } };

test.before(async () => {
  server = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: checkpoints, SELFHOSTED_PINNED_CHECKPOINT: 'english' });
  plugin = await startPlugin(selfhosted, { pluginId: 'judge-selfhosted', env: { SELFHOSTED_HTTP_PORT: String(server.port) } });
});
test.after(async () => {
  await plugin?.stop();
  await server?.stop();
  rmSync(checkpoints, { recursive: true, force: true });
});

test('asks the loopback judge server with the default model "english" and gets a probability per question', async () => {
  const yes = await judge(plugin).ask({ state: 'yes yes', questions: QUESTIONS, timeoutMs: 5000 });
  const no = await judge(plugin).ask({ state: 'no no', questions: QUESTIONS, timeoutMs: 5000 });
  assert.ok(yes.answers.reader_question! > 0.5, `yes scored ${yes.answers.reader_question}`);
  assert.ok(no.answers.reader_question! < 0.5, `no scored ${no.answers.reader_question}`);
});

test('health reports the server reachable with its resident checkpoint', async () => {
  const health = await plugin.instance.health!();
  assert.equal(health, { ok: true, info: { url: `http://127.0.0.1:${server.port}`, reachable: true, resident: true, loaded: ['english'] } });
});

test('the judge contract (1.2): served on this machine, ready once a checkpoint is resident, with the server it calls', async () => {
  assert.is(judge(plugin).served, 'local');
  assert.equal(await judge(plugin).readiness!(), { ready: true, responding: true, info: { url: `http://127.0.0.1:${server.port}`, reachable: true, resident: true, loaded: ['english'] } });
});

test('an empty server responds but is not ready, with the hint to start the service or switch', async () => {
  const empty = tempDir('switchboard-checkpoints-');
  const bare = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: empty, SELFHOSTED_PINNED_CHECKPOINT: 'none' });
  const started = await startPlugin(selfhosted, { pluginId: 'judge-selfhosted', env: { SELFHOSTED_HTTP_PORT: String(bare.port) } });
  try {
    const readiness = await judge(started).readiness!();
    assert.equal([readiness.ready, readiness.responding], [false, true]);
    assert.match(readiness.detail ?? '', /no checkpoint is resident/);
    assert.match(readiness.hint ?? '', /start the managed service \(switchboard judge-server\) or set system_one.provider to hosted/);
    assert.ok((await started.instance.health!())?.ok, 'a running server is healthy: readiness is what waits for a checkpoint');
  } finally {
    await started.stop();
    await bare.stop();
    rmSync(empty, { recursive: true, force: true });
  }
});

test('the health check, which runs at idle, does not load undici (fetch)', async () => {
  // A fresh process: this one loaded undici for the cases above.
  const script = `
    const { startPlugin } = await import(${JSON.stringify(import.meta.resolve('switchboard/sdk/testing'))});
    const plugin = (await import(${JSON.stringify(import.meta.resolve('../../../plugins/judge-selfhosted/index.js'))})).default;
    const started = await startPlugin(plugin, { pluginId: 'judge-selfhosted', env: { SELFHOSTED_HTTP_PORT: '${server.port}' } });
    const health = await started.instance.health();
    await started.stop();
    const undici = process.moduleLoadList.some((m) => m.includes('undici'));
    console.log(JSON.stringify({ resident: health.info.resident, undici }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--input-type=module', '-e', script]);
  assert.equal(JSON.parse(stdout.trim().split('\n').pop()!), { resident: true, undici: false });
});

test('with no server on the port the check is not ok but optional, says why in detail, and a call is unavailable', async () => {
  const port = await freePort();
  const absent = await startPlugin(selfhosted, { pluginId: 'judge-selfhosted', env: { SELFHOSTED_HTTP_PORT: String(port) } });
  try {
    const health = await absent.instance.health!();
    assert.is(health?.ok, false);
    assert.is(health?.optional, true);
    assert.match(health?.detail ?? '', /does not answer \(ECONNREFUSED\): start the managed service \(switchboard judge-server\) or set system_one.provider to hosted/);
    assert.equal((health as { info?: unknown }).info, { url: `http://127.0.0.1:${port}`, reachable: false, resident: false, loaded: [] });
    const readiness = await judge(absent).readiness!();
    assert.equal([readiness.ready, readiness.responding], [false, false], 'not responding: what the alert on a local judge waits for');
    assert.match(readiness.detail ?? '', /does not answer \(ECONNREFUSED\)/);
    let failure: unknown;
    try {
      await judge(absent).ask({ state: 's', questions: QUESTIONS, timeoutMs: 1200, maxRetries: 0 });
    } catch (err) {
      failure = err;
    }
    assert.instance(failure, SystemOneError);
    assert.is((failure as SystemOneError).outcome, 'unavailable');
  } finally {
    await absent.stop();
  }
});

test('a server on the port that streams an endless answer to /health is not taken for the judge: the check ends, not ok', async () => {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const endless = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const more = () => {
      while (res.write(chunk));
      res.once('drain', more);
    };
    more();
  });
  await new Promise<void>((r) => endless.listen(0, '127.0.0.1', () => r()));
  const port = (endless.address() as AddressInfo).port;
  const other = await startPlugin(selfhosted, { pluginId: 'judge-selfhosted', env: { SELFHOSTED_HTTP_PORT: String(port) } });
  try {
    const health = await other.instance.health!();
    assert.is(health?.ok, false);
    assert.match(health?.detail ?? '', /does not answer \(health answer over 65536 characters\)/);
  } finally {
    await other.stop();
    endless.closeAllConnections();
    endless.close();
  }
});

// The SDK's judge suite against the real server (its port is known once it listens).
const conformanceEnv: Record<string, string> = {};
test.before(() => {
  conformanceEnv.SELFHOSTED_HTTP_PORT = String(server.port);
});
for (const c of judgeConformance({ plugin: selfhosted, pluginId: 'judge-selfhosted', env: conformanceEnv, request: { model: 'english', state: 'yes', questions: QUESTIONS } })) test(c.name, () => c.run());

test('the port defaults to 58180', async () => {
  const defaulted = await startPlugin(selfhosted, { pluginId: 'judge-selfhosted' });
  try {
    assert.is((defaulted.ctx.settings as { port: number }).port, 58180);
  } finally {
    await defaulted.stop();
  }
});

test.run();
