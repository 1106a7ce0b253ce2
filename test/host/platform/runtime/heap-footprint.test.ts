import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, removeDir, tempDir, until } from '../../../support/gateway.js';
import { startChildGateway } from '../../../support/child-gateway.js';

/** Preloaded into the gateway: every 50 ms, whether V8 sends a new hot function to TurboFan (natives syntax, this process only). */
const TURBOFAN_PROBE = `import v8 from 'node:v8';
  v8.setFlagsFromString('--allow-natives-syntax');
  const status = new Function('f', 'return %GetOptimizationStatus(f)');
  // kOptimized, kMarkedForOptimization, kMarkedForConcurrentOptimization, kOptimizingConcurrently.
  const TURBOFAN_BITS = (1 << 4) | (1 << 8) | (1 << 9) | (1 << 10);
  setInterval(() => {
    const hot = new Function('let s = 0; for (let i = 0; i < 100; i++) s += i * i; return s;');
    // With TurboFan on V8 sends it within a few dozen calls.
    let sent = false;
    for (let i = 0; i < 2000 && !sent; i++) { hot(); sent = (status(hot) & TURBOFAN_BITS) !== 0; }
    process.stderr.write('turbofan ' + (sent ? 'yes' : 'no') + '\\n');
  }, 50).unref();`;

test('the gateway starts without the optimizing compiler, and optimizes hot code again once it serves', async () => {
  const dataDir = tempDir();
  const gateway = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(TURBOFAN_PROBE)}` });
  try {
    const probes = (text: string) => [...text.matchAll(/^turbofan (yes|no)$/gm)].map((m) => m[1]);
    const listening = () => gateway.output().indexOf('switchboard listening');
    // Start-up takes seconds: its last probes ran after the entry point turned TurboFan off (the
    // very first ones may run before it does, while its imports load).
    const beforeServing = probes(gateway.output().slice(0, listening()));
    assert.ok(beforeServing.length >= 3, gateway.output());
    assert.equal(beforeServing.slice(-3), ['no', 'no', 'no'], 'no TurboFan while the gateway starts');
    await until(() => probes(gateway.output().slice(listening())).includes('yes'), 20_000, 50);
  } finally {
    await gateway.kill();
    removeDir(dataDir);
  }
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
