import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The young generation's cap per semi-space, unless the operator set one (NODE_OPTIONS or a flag). */
export const SEMI_SPACE_MB = 2;

const operatorSet = () => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--max-semi-space-size(=|$)/.test(a));

/**
 * Node 20 lets the young generation grow to 16 MB per semi-space (32 MB committed) while the
 * gateway imports its modules, and keeps it that size afterwards: a third of an idle gateway's
 * resident memory. Capped at SEMI_SPACE_MB, a request's garbage still dies young (a request
 * allocates tens of kilobytes), and the heap stays small under load. The cap applies from the
 * next full collection, which `settleHeap` runs once the gateway is listening.
 */
export function capYoungGeneration(): void {
  if (!operatorSet()) v8.setFlagsFromString(`--max-semi-space-size=${SEMI_SPACE_MB}`);
}

/**
 * Full collections once the gateway has been listening for a few seconds: the start-up garbage
 * (module sources parsed once, config and manifest parsing) is released, and V8 shrinks the
 * young generation to its cap only at a collection that sees a low allocation rate, so not
 * during start-up itself. The timers do not keep the process alive; each collection takes a
 * few milliseconds.
 */
export function settleHeapAfterStart(delaysMs: number[] = [5_000, 10_000]): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (!gc) return;
  for (const delay of delaysMs) setTimeout(gc, delay).unref();
}
