import path from 'node:path';
import { ConfigRegistry } from '../platform/config/registry.js';
import { createLogger } from '../platform/logging/logger.js';
import { startJudgeServer } from '../surfaces/workbench/judge-server/judge-server.js';
import type { CliOutput } from './main.js';

export const INFERENCE_RUNTIME_MISSING =
  'the self-hosted judge needs the optional inference runtime: ONNXRUNTIME_NODE_INSTALL=skip npm install --include=optional (onnxruntime-node, @huggingface/tokenizers, eld); see docs/workbench/judge.md';

/** Whether the optional inference runtime is installed (the gateway never loads it). */
export async function inferenceRuntimeInstalled(): Promise<boolean> {
  try {
    await import('onnxruntime-node');
    await import('@huggingface/tokenizers');
    await import('eld/small');
    return true;
  } catch {
    return false;
  }
}

/** `switchboard judge-server`: serves until SIGINT or SIGTERM. */
export async function runJudgeServer(io: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const config = ConfigRegistry.fromEnvironment(env);
  for (const problem of config.problems()) io.err(`switchboard judge-server: configuration value ignored: ${problem}`);
  if (!(await inferenceRuntimeInstalled())) {
    io.err(`switchboard judge-server: ${INFERENCE_RUNTIME_MISSING}`);
    return 1;
  }
  const root = path.resolve(config.get('SELFHOSTED_CHECKPOINTS_DIR') ?? path.join(config.get('DATA_DIR'), 'judge-checkpoints'));
  const pinned = config.get('SELFHOSTED_PINNED_CHECKPOINT');
  const server = await startJudgeServer({ checkpointsRoot: root, pinned: pinned === 'none' ? null : pinned, port: config.get('SELFHOSTED_HTTP_PORT'), logger: createLogger(config.get('LOG_LEVEL'), undefined, config.get('LOG_FORMAT')) });
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await server.close();
  return 0;
}
