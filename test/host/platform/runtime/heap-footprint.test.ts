import v8 from 'node:v8';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.run();
