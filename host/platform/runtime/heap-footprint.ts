import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Server } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';

/** The young generation's cap per semi-space, unless the operator set one (NODE_OPTIONS or a flag). */
export const SEMI_SPACE_MB = 2;
/** How far the old generation may grow past what survived the last full collection, in percent. */
export const HEAP_GROWING_PERCENT = 30;
/** The young generation's size per semi-space under load, in MB (V8's growth stops there). */
export const YOUNG_GENERATION_MB = 4;

const MB = 1024 * 1024;

const operatorSet = (flag: string) =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.replace(/_/g, '-').startsWith(`--${flag}`));

/**
 * Two V8 sizing rules for a gateway's workload (many small requests, little long-lived data):
 *
 * - Node 20 lets the young generation grow to 16 MB per semi-space (32 MB committed) while the
 *   gateway imports its modules, and keeps it that size afterwards: a third of an idle gateway's
 *   resident memory. Capped at SEMI_SPACE_MB, a request's garbage still dies young (a request
 *   allocates tens of kilobytes); the cap applies from the next full collection.
 * - Under sustained uploads V8 let the old generation grow to three or four times what survives a
 *   full collection (peak RSS 224 MB in 25 s of POST /fax at 16 connections); growing by 30% at a
 *   time it peaked at 152 MB for the same CPU per request (docs/benchmarks.md).
 *
 * An operator's own flag wins (`--max-semi-space-size` in NODE_OPTIONS or on the command line,
 * `--heap-growing-percent` on the command line).
 */
export function limitHeapGrowth(): void {
  if (!operatorSet('max-semi-space-size')) {
    v8.setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
    // Node 20's V8 reads the maximum only when the heap is set up, so set at run time it caps
    // nothing (the young generation still reached 32 MB while the modules loaded). The growth
    // factor is read at each growth: at 1 the semi-spaces keep V8's initial size (1 MB each on
    // 64-bit) through start-up; `capYoungGeneration` lets it grow, up to a cap, once the gateway serves.
    v8.setFlagsFromString('--semi-space-growth-factor=1');
  }
  if (!operatorSet('heap-growing-percent')) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * Once the gateway serves: the young generation may grow again under load, by V8's default
 * factor, up to `semiSpaceMb` per semi-space. Kept at 1 MB, sustained POST /fax cost 15-40% more
 * CPU per request (docs/benchmarks.md, issue 27); let grow to Node 20's 16 MB, it added about 20 MB
 * to the peak. V8 fixed the maximum at heap setup, so the growth factor is set to 1 once the new space
 * reaches the cap (checked after each collection), and back to V8's when an idle collection shrank it.
 */
export function capYoungGeneration(semiSpaceMb = YOUNG_GENERATION_MB): void {
  if (operatorSet('max-semi-space-size')) return;
  let factor = 0;
  const check = () => {
    // One semi-space's usable bytes (the new space's size leaves out a from-space V8 uncommitted);
    // V8 grows it by the factor, so it may grow while twice its size stays within the cap.
    const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!;
    const next = 2 * (newSpace.space_used_size + newSpace.space_available_size) <= semiSpaceMb * MB ? 2 : 1;
    if (next !== factor) v8.setFlagsFromString(`--semi-space-growth-factor=${(factor = next)}`);
  };
  check();
  new PerformanceObserver(check).observe({ entryTypes: ['gc'] });
}

/**
 * No optimizing compiler (TurboFan) while the gateway starts. Start-up runs most of its code once
 * (module bodies, schema and route declarations), yet V8 optimized dozens of its functions on its
 * worker threads, whose malloc arenas kept 4-5 MB of the compilers' freed memory for the life of an
 * idle process (docs/benchmarks.md, issue 27). The flag is read at each tiering decision, so
 * `optimizingCompilerMayRun` turns it back on once the gateway serves. An operator's own
 * `--turbofan`, `--opt`, `--jitless` or `--max-opt` wins.
 */
export function deferOptimizingCompiler(): void {
  if (!operatesCompiler()) v8.setFlagsFromString('--no-turbofan');
}

/** Once the gateway serves: hot request paths are optimized as usual. */
export function optimizingCompilerMayRun(): void {
  if (!operatesCompiler()) v8.setFlagsFromString('--turbofan');
}

const operatesCompiler = () => ['turbofan', 'no-turbofan', 'opt', 'no-opt', 'jitless', 'max-opt'].some(operatorSet);

/**
 * Full collections once the gateway has been idle for a few seconds after start: the start-up
 * garbage (module sources parsed once, config and manifest parsing) is released, and V8 shrinks
 * the young generation to its cap only at a collection that sees a low allocation rate, so not
 * during start-up itself. A forced collection is not incremental (tens of milliseconds, more on
 * a busy machine), so it is skipped when a request arrived in the last `quietMs`: a gateway taking
 * traffic has no idle footprint to settle. The timers do not keep the process alive.
 */
export function settleHeapWhenIdle(server: Server, delaysMs: number[] = [5_000, 10_000], quietMs = 2_000): void {
  let lastRequest = 0;
  server.on('request', () => (lastRequest = Date.now()));
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (!gc) return;
  for (const delay of delaysMs) setTimeout(() => Date.now() - lastRequest >= quietMs && gc(), delay).unref();
}
