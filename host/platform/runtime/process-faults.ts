import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';

export type ProcessFaultKind = 'uncaught_exception' | 'unhandled_rejection';

/**
 * Last line of defence for errors no code path handled (an emitter's `error` without a
 * listener, a promise nobody awaited): each is logged with its stack and counted in
 * `switchboard_process_faults_total{kind}`, and the process keeps serving. Such a throw
 * happens in an event callback of one request or job whose stream is already torn down, so
 * the rest of the process is intact; ending it would let one bad request stop the gateway
 * for every caller. A non-zero counter is a bug to report (docs/platform/operations.md).
 * Returns a function that removes the handlers.
 */
export function installProcessFaultHandlers(deps: { logger: Logger; metrics: Registry; target?: NodeJS.Process }): () => void {
  const target = deps.target ?? process;
  const faults = new Counter({
    name: 'switchboard_process_faults_total',
    help: 'Errors no code path handled (uncaught exceptions, unhandled promise rejections); each one is a bug',
    labelNames: ['kind'],
    registers: [deps.metrics],
  });
  // Both series exist from the start, so an alert can compare against zero.
  for (const kind of ['uncaught_exception', 'unhandled_rejection'] as const) faults.inc({ kind }, 0);
  const record = (kind: ProcessFaultKind, err: unknown) => {
    faults.inc({ kind });
    const detail = err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : { value: String(err) };
    deps.logger.error({ kind, err: detail }, 'process fault: an error no code path handled (a bug; the gateway keeps serving)');
  };
  const onException = (err: Error) => record('uncaught_exception', err);
  const onRejection = (reason: unknown) => record('unhandled_rejection', reason);
  target.on('uncaughtException', onException);
  target.on('unhandledRejection', onRejection);
  return () => {
    target.off('uncaughtException', onException);
    target.off('unhandledRejection', onRejection);
    deps.metrics.removeSingleMetric('switchboard_process_faults_total');
  };
}
