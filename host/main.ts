import { capYoungGeneration, deferOptimizingCompiler, limitHeapGrowth, optimizingCompilerMayRun, settleHeapWhenIdle } from './platform/runtime/heap-footprint.js';

/**
 * `npm start`: the gateway on PORT with state under DATA_DIR, stopped cleanly on SIGTERM/SIGINT.
 * The port is bound first, with PORT and HOST read without the configuration model (whose modules
 * take most of a start): GET /health (liveness) answers from then on, every other request waits
 * for the gateway.
 */
limitHeapGrowth();
deferOptimizingCompiler();
// Imported only now: every module imported statically loads before the first line runs, and the
// young generation grew to 8 MB per semi-space while the configuration's modules loaded.
const [{ readListenAddress }, { EarlyServer }, { exitOnStartupFault, installProcessFaultHandlers, startupFailureLine }] = await Promise.all([
  import('./platform/config/listen-address.js'),
  import('./platform/http/early-server.js'),
  import('./platform/runtime/process-faults.js'),
]);
const stopStartupGuard = exitOnStartupFault();
const failStart = (line: string): never => {
  process.stderr.write(`switchboard: ${line}\n`);
  process.exit(1);
};
const { port, host } = readListenAddress(process.env, process.cwd());
const early = await EarlyServer.listen(port, host).catch((err: unknown) => failStart(startupFailureLine(err, { port, host })));
// The port is taken: a supervisor (or a test) learns it before the gateway's modules load.
process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: 'switchboard port bound', port: early.address.port })}\n`);
const [{ ConfigRegistry }, { gatewayConfigModel }, { rememberBoundPort }] = await Promise.all([
  import('./platform/config/registry.js'),
  import('./surfaces/settings.js'),
  import('./platform/http/public-url.js'),
]);
const config = ConfigRegistry.fromEnvironment(gatewayConfigModel(), process.env, process.cwd());
// The early read and the model must agree; a gateway bound elsewhere than its configuration says must not serve.
if (config.get('PORT') !== port || config.get('HOST') !== host) {
  failStart(`the gateway could not start: bound ${host}:${port} but the configuration says ${config.get('HOST')}:${config.get('PORT')}`);
}
rememberBoundPort(config, early.address.port);
const { createGateway } = await import('./surfaces/gateway.js');
// The app answers from the moment the surfaces are installed: while the plugins load, what needs
// them answers 503 with Retry-After (a webhook sent meanwhile is delivered again, never lost to a 404).
const gateway = await createGateway({ config, beforePlugins: (built) => early.open(built.app) }).catch((err: unknown) => failStart(startupFailureLine(err)));
// SIGTERM/SIGINT drain and stop from the moment the gateway exists, before it logs that it listens.
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
await gateway.listen(port, host, early);
stopStartupGuard();
// From here on one bad request must not stop the gateway: faults are logged and counted.
installProcessFaultHandlers({ logger: gateway.logger, metrics: gateway.metrics });
settleHeapWhenIdle(gateway.server!);
capYoungGeneration();
optimizingCompilerMayRun();
