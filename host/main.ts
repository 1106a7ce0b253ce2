import { createGateway } from './surfaces/gateway.js';
import { exitOnStartupFault, installProcessFaultHandlers, startupFailureLine } from './platform/runtime/process-faults.js';
import { limitHeapGrowth, settleHeapWhenIdle } from './platform/runtime/heap-footprint.js';

/** `npm start`: the gateway on PORT with state under DATA_DIR, stopped cleanly on SIGTERM/SIGINT. */
limitHeapGrowth();
const stopStartupGuard = exitOnStartupFault();
const failStart = (line: string): never => {
  process.stderr.write(`switchboard: ${line}\n`);
  process.exit(1);
};
const gateway = await createGateway().catch((err: unknown) => failStart(startupFailureLine(err)));
try {
  await gateway.listen();
} catch (err) {
  const line = startupFailureLine(err, { port: gateway.config.get('PORT'), host: gateway.config.get('HOST') });
  gateway.logger.error({ err: (err as Error).message }, 'could not listen; stopping');
  // Plugins and the database close in order; a stop that hangs must not keep the process up.
  setTimeout(() => failStart(line), 10_000);
  await gateway.close().catch(() => {});
  failStart(line);
}
stopStartupGuard();
// From here on one bad request must not stop the gateway: faults are logged and counted.
installProcessFaultHandlers({ logger: gateway.logger, metrics: gateway.metrics });
settleHeapWhenIdle(gateway.server!);
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    gateway.logger.info({ signal }, 'draining and stopping');
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
