import path from 'node:path';
import { createPluginLogger } from '../../core/kernel/plugin-logger.js';
import { removeServerAddress, writeServerAddress } from '../../plugins/judge-selfhosted/server-address.js';
import { startJudgeServer } from '../../plugins/judge-selfhosted/server/judge-server.js';
import { JUDGE_RUNTIME_INSTALL, onnxRuntimeEntry } from '../../plugins/judge-selfhosted/server/onnx-runtime.js';
import { checkpointWriterInstalled, writeMissingDemoCheckpoints } from '../../plugins/judge-selfhosted/server/word-checkpoint.js';
import { ConfigRegistry } from '../platform/config/registry.js';
import { createLogger } from '../platform/logging/logger.js';
import { gatewayConfigModel } from '../surfaces/settings.js';
import type { WorkbenchConfig } from '../surfaces/workbench/workbench-settings.js';
import type { CliOutput } from './main.js';

export const INFERENCE_RUNTIME_MISSING =
  `the self-hosted judge needs its inference runtime: ${JUDGE_RUNTIME_INSTALL} installs the ONNX runtime (onnxruntime-node); @huggingface/tokenizers and eld come with npm install unless optional dependencies were omitted; see docs/workbench/judge.md`;

/** Whether the inference runtime is installed (the gateway never loads it). */
export async function inferenceRuntimeInstalled(): Promise<boolean> {
  if (!onnxRuntimeEntry()) return false;
  try {
    await import('@huggingface/tokenizers');
    await import('eld/small');
    return true;
  } catch {
    return false;
  }
}

/**
 * `switchboard judge-server`: serves until SIGINT or SIGTERM. The server is the self-hosted judge
 * plugin's (plugins/judge-selfhosted/server/); its settings are part of the gateway's configuration.
 */
export async function runJudgeServer(io: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const config: WorkbenchConfig = ConfigRegistry.fromEnvironment(gatewayConfigModel(), env);
  for (const problem of config.problems()) io.err(`switchboard judge-server: configuration value ignored: ${problem}`);
  if (!(await inferenceRuntimeInstalled())) {
    io.err(`switchboard judge-server: ${INFERENCE_RUNTIME_MISSING}`);
    return 1;
  }
  const chosen = config.get('SELFHOSTED_CHECKPOINTS_DIR');
  const root = path.resolve(chosen ?? path.join(config.get('DATA_DIR'), 'judge-checkpoints'));
  const pinned = config.get('SELFHOSTED_PINNED_CHECKPOINT');
  const logger = createLogger(config.get('LOG_LEVEL'), undefined, config.get('LOG_FORMAT'));
  // Out of the box (no SELFHOSTED_CHECKPOINTS_DIR) the server writes the demo checkpoint under
  // DATA_DIR so it answers at once; a directory the operator chose is never written.
  if (!chosen) {
    if (checkpointWriterInstalled()) {
      const written = writeMissingDemoCheckpoints(root);
      if (written.length) logger.info({ component: 'judge-server', dir: root, checkpoints: written }, 'demo checkpoint written (a toy that reads yes/no words; set SELFHOSTED_CHECKPOINTS_DIR for real ones)');
    } else {
      logger.warn({ component: 'judge-server', dir: root }, 'no demo checkpoint written: the optional dependency onnx-proto is not installed; put checkpoints in the directory or set SELFHOSTED_CHECKPOINTS_DIR');
    }
  }
  const start = (port: number) => startJudgeServer({ checkpointsRoot: root, pinned: pinned === 'none' ? null : pinned, port, logger: createPluginLogger(logger, { component: 'judge-server' }, () => []) });
  const port = config.get('SELFHOSTED_HTTP_PORT');
  // Listened for before the server answers: a stop asked the moment it is up still drains it.
  const stopAsked = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  let server;
  try {
    server = await start(port);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    // The default port taken: any free port does, since the gateway finds it by the address
    // file below. A port the operator chose is kept to: say so instead.
    if (config.effective().source.SELFHOSTED_HTTP_PORT !== 'default') {
      io.err(`switchboard judge-server: port ${port} (SELFHOSTED_HTTP_PORT) is in use; unset SELFHOSTED_HTTP_PORT to let the server pick a free port, or choose another`);
      return 1;
    }
    logger.info({ component: 'judge-server', port }, 'the default port is in use: picking a free one');
    server = await start(0);
  }
  const dataDir = path.resolve(config.get('DATA_DIR'));
  writeServerAddress(dataDir, server.port);
  await stopAsked;
  await server.close();
  removeServerAddress(dataDir);
  return 0;
}
