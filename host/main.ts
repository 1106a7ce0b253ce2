import { createGateway } from './surfaces/gateway.js';
import { installProcessFaultHandlers } from './platform/runtime/process-faults.js';
import { limitHeapGrowth, settleHeapWhenIdle } from './platform/runtime/heap-footprint.js';

/** `npm start`: the gateway on PORT with state under DATA_DIR, stopped cleanly on SIGTERM/SIGINT. */
limitHeapGrowth();
const gateway = await createGateway();
// Installed once the gateway exists: a failure while starting still ends the process.
installProcessFaultHandlers({ logger: gateway.logger, metrics: gateway.metrics });
await gateway.listen();
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
