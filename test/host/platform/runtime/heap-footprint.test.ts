import v8 from 'node:v8';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, removeDir, tempDir } from '../../../support/gateway.js';
import { startChildGateway } from '../../../support/child-gateway.js';
import { deferOptimizingCompiler, optimizingCompilerMayRun } from '../../../../host/platform/runtime/heap-footprint.js';

// V8's own view of a function's tier (natives syntax, allowed for this process only).
v8.setFlagsFromString('--allow-natives-syntax');
const optimizationStatus = new Function('f', 'return %GetOptimizationStatus(f)') as (f: () => number) => number;
// kOptimized, kMarkedForOptimization, kMarkedForConcurrentOptimization, kOptimizingConcurrently.
const TURBOFAN_BITS = (1 << 4) | (1 << 8) | (1 << 9) | (1 << 10);

/** A new hot function, called until V8 sends it to TurboFan or `calls` run out; whether it was sent. */
function sentToTurbofan(calls: number): boolean {
  const hot = new Function('let s = 0; for (let i = 0; i < 100; i++) s += i * i; return s;') as () => number;
  for (let i = 0; i < calls; i++) {
    hot();
    if (optimizationStatus(hot) & TURBOFAN_BITS) return true;
  }
  return false;
}

test('start-up runs without the optimizing compiler, and hot code is optimized again once the gateway serves', () => {
  assert.ok(sentToTurbofan(1_000_000), 'TurboFan optimizes a hot function by default');
  deferOptimizingCompiler();
  assert.not.ok(sentToTurbofan(1_000_000), 'no TurboFan while the gateway starts');
  optimizingCompilerMayRun();
  assert.ok(sentToTurbofan(1_000_000), 'TurboFan again once the gateway serves');
});

// V8's flags are per process: each case runs in a new one.
const MB = 1024 * 1024;
const module = pathToFileURL(path.join(ROOT, 'dist/host/platform/runtime/heap-footprint.js')).href;

/** The largest young generation (per semi-space, MB) while objects outlive a few scavenges, as a request's do. */
function youngGenerationUnderLoad(capMb: number, nodeFlags: string[] = []): number {
  const script = `
    import v8 from 'node:v8';
    import { capYoungGeneration, limitHeapGrowth } from ${JSON.stringify(module)};
    limitHeapGrowth();
    capYoungGeneration(${capMb});
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    let largest = 0;
    const live = new Array(20000);
    for (let i = 0; i < 2000; i++) {
      for (let j = 0; j < 1000; j++) live[(i * 1000 + j) % live.length] = { i, j, list: [i, j, i + j] };
      largest = Math.max(largest, newSpace());
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.stdout.write(String(largest / 2));
  `;
  const run = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(run.status, 0, run.stderr);
  return Number(run.stdout) / MB;
}

test('under load the young generation grows from 1 MB per semi-space up to the cap, and no further', () => {
  assert.is(youngGenerationUnderLoad(2), 2);
  assert.is(youngGenerationUnderLoad(8), 8);
});

test("an operator's --max-semi-space-size wins over the cap", () => {
  assert.is(youngGenerationUnderLoad(2, ['--max-semi-space-size=8']), 8);
});

test("the gateway's young generation keeps 1 MB per semi-space while its modules load", async () => {
  // Preloaded: prints the young generation's size after each collection until the process ends.
  const probe = `import v8 from 'node:v8'; import { PerformanceObserver } from 'node:perf_hooks';
    new PerformanceObserver(() => process.stderr.write('young ' + v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 + '\\n')).observe({ entryTypes: ['gc'] });`;
  const dataDir = tempDir();
  const gateway = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(probe)}` });
  try {
    const output = gateway.output();
    const start = output.slice(0, output.indexOf('switchboard listening'));
    const sizes = [...start.matchAll(/^young (\d+)$/gm)].map((m) => Number(m[1]) / MB);
    assert.ok(sizes.length > 0, output);
    assert.is(Math.max(...sizes), 1);
  } finally {
    await gateway.kill();
    removeDir(dataDir);
  }
});

test.run();
