import { suite } from 'uvu';
import { rmSync } from 'node:fs';
import type { JudgeRequest } from 'switchboard/sdk';
import { conformance } from 'switchboard/sdk/testing';
import hosted from '../../../plugins/judge-hosted/index.js';
import selfhosted from '../../../plugins/judge-selfhosted/index.js';
import { startSystemOneFake } from '../../fakes/system-one-fake.js';
import { tempDir } from '../../support/gateway.js';
import { isolatedBuiltin } from '../../support/isolated-builtin.js';
import { writeTinyCheckpoint } from '../../support/judge-checkpoint.js';
import { startJudgeServerProcess, type JudgeServerProcess } from '../../support/judge-server-process.js';

// The kit's judge suite against the built-in judges in a child process, as
// PLUGIN_ISOLATION=<id>=process runs them: the request, the answer, readiness and `served` cross
// the boundary. The alert sinks are declarative manifests with no code of their own: they always
// run on the host's runtime, so there is nothing of theirs to isolate.

// A child process per case on a loaded machine.
const timeouts = { startMs: 30_000 };

{
  const test = suite('judge-hosted, isolated: judge conformance');
  let fake: Awaited<ReturnType<typeof startSystemOneFake>>;
  test.before(async () => {
    fake = await startSystemOneFake();
  });
  test.after(async () => {
    await fake.close();
  });
  // The fake's URL is read when each case starts the plugin, after before() started it.
  const options = {
    plugin: hosted,
    pluginId: 'judge-hosted',
    isolation: isolatedBuiltin('judge-hosted'),
    timeouts,
    get env() {
      return { SYSTEM_ONE__HOSTED_URL: fake.url, HOSTED_JUDGE_API_KEY: 'hk_secret_1' };
    },
  };
  for (const c of conformance.judge(options)) test(c.name, c.run);
  test.run();
}

{
  // The real judge server (switchboard judge-server, on the ONNX runtime) with a tiny checkpoint.
  const test = suite('judge-selfhosted, isolated: judge conformance');
  const checkpoints = tempDir('switchboard-isolated-checkpoints-');
  writeTinyCheckpoint(checkpoints, 'english', { yes: [0, 4], no: [4, 0] });
  let server: JudgeServerProcess;
  test.before(async () => {
    server = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: checkpoints, SELFHOSTED_PINNED_CHECKPOINT: 'english' });
  });
  test.after(async () => {
    await server?.stop();
    rmSync(checkpoints, { recursive: true, force: true });
  });
  const request: JudgeRequest = { model: 'english', state: 'yes', questions: { reader_question: { type: 'noul', instructions: 'Would a reader ask this?' } } };
  const options = {
    plugin: selfhosted,
    pluginId: 'judge-selfhosted',
    request,
    isolation: isolatedBuiltin('judge-selfhosted'),
    timeouts,
    get env() {
      return { SELFHOSTED_HTTP_PORT: String(server.port) };
    },
  };
  for (const c of conformance.judge(options)) test(c.name, c.run);
  test.run();
}
