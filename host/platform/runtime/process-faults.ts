import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

// prom-client is required when the handlers are installed: npm start imports this module before
// it binds the port and must not load prom-client's 50 ms of modules to do so.
const require = createRequire(import.meta.url);

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
  const { Counter } = require('prom-client') as typeof import('prom-client');
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

/** The one line a start that failed before listening prints: what went wrong and what to set. */
export function startupFailureLine(err: unknown, where: { port?: number; host?: string } = {}): string {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  const port = e?.port ?? where.port;
  const host = e?.address ?? where.host;
  if (e?.code === 'EADDRINUSE') return `port ${port} is in use; set PORT`;
  if (e?.code === 'EACCES' && e?.syscall === 'listen') return `port ${port} needs privileges this process lacks; set PORT (1024 or above)`;
  if (e?.code === 'EADDRNOTAVAIL' || (e?.code === 'ENOTFOUND' && e?.syscall === 'getaddrinfo')) return `address ${host} is not available on this machine; set HOST`;
  const message = err instanceof Error ? err.message : String(err);
  return `the gateway could not start: ${message.split('\n')[0]}`;
}

/**
 * Until the gateway listens, any fault ends the process with one line on stderr and exit code 1:
 * a half-started gateway must not stay up (it would not serve, and its work must not run).
 * Returns a function that removes the handlers once the gateway listens.
 */
export function exitOnStartupFault(write: (line: string) => void = (line) => process.stderr.write(`switchboard: ${line}\n`)): () => void {
  const fail = (err: unknown) => {
    write(startupFailureLine(err));
    process.exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  return () => {
    process.off('uncaughtException', fail);
    process.off('unhandledRejection', fail);
  };
}
