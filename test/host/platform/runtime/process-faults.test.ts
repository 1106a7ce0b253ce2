import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../../support/gateway.js';

// A real process: the handlers are only meaningful where an unhandled error would end it.
function runFaultyProcess(install: boolean) {
  const module = pathToFileURL(path.join(ROOT, 'dist/host/platform/runtime/process-faults.js')).href;
  const script = `
    import { pino } from 'pino';
    import { Registry } from 'prom-client';
    import { EventEmitter } from 'node:events';
    import { installProcessFaultHandlers } from ${JSON.stringify(module)};
    const metrics = new Registry();
    if (${install}) installProcessFaultHandlers({ logger: pino(), metrics });
    setTimeout(() => new EventEmitter().emit('error', new Error('emitter without listener')), 10);
    Promise.reject(new Error('nobody awaits this'));
    setTimeout(async () => {
      process.stdout.write((await metrics.metrics()) + '\\nSTILL-RUNNING\\n');
      process.exit(0);
    }, 100);
  `;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
}

test('an uncaught exception and an unhandled rejection are logged and counted, and the process keeps running', () => {
  const run = runFaultyProcess(true);
  assert.is(run.status, 0, run.stderr);
  assert.ok(run.stdout.includes('STILL-RUNNING'));
  assert.match(run.stdout, /switchboard_process_faults_total\{kind="uncaught_exception"\} 1\b/);
  assert.match(run.stdout, /switchboard_process_faults_total\{kind="unhandled_rejection"\} 1\b/);
  const logs = run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  const faults = logs.filter((l) => l.msg.startsWith('process fault'));
  assert.equal(faults.map((l) => l.kind).sort(), ['uncaught_exception', 'unhandled_rejection']);
  assert.ok(faults.every((l) => l.level === 50 && typeof l.err.stack === 'string'));
  assert.ok(faults.some((l) => l.err.message === 'emitter without listener'));
});

test('without the handlers the same process dies (the control for the test above)', () => {
  const run = runFaultyProcess(false);
  assert.is.not(run.status, 0);
  assert.not.ok(run.stdout.includes('STILL-RUNNING'));
});

test.run();
