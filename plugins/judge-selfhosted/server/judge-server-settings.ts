import { envOnly, z } from 'switchboard/sdk';
import { CHECKPOINT_NAMES } from './checkpoints.js';

// A value arrives as text from the environment and typed from the JSON config file: both are taken.
const numberFromText = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value);
const unsetWhenEmpty = (value: unknown) => (value === '' || value === null ? undefined : value);

/**
 * The judge server's settings. `switchboard judge-server` reads them at its start (environment
 * and env file > the JSON config file > these defaults); the gateway's configuration model
 * includes them, so GET /api/config shows them, POST /api/config writes them (for the server's
 * next start) and docs/platform/configuration.md lists them.
 */
export const JUDGE_SERVER_KEYS = {
  SELFHOSTED_HTTP_PORT: z
    .preprocess(numberFromText, z.number().int().min(0).max(65535))
    .default(58180)
    .describe('Loopback port of the self-hosted judge server (switchboard judge-server, read at its start); the self-hosted judge plugin (system_one.provider selfhosted) calls it there. Unset and 58180 taken, or 0: the server picks a free port, logs it ("judge server listening", `port`) and writes it to DATA_DIR/judge-server/address.json, where the plugin finds it (nothing to set in the gateway, no restart); set and taken: the server exits saying so.'),
  SELFHOSTED_CHECKPOINTS_DIR: envOnly(
    z
      .preprocess(unsetWhenEmpty, z.string().min(1).optional())
      .describe('Directory holding the judge checkpoints as <name>/model.onnx + tokenizer.json, read by switchboard judge-server at its start; unset means DATA_DIR/judge-checkpoints, where the server writes a demo checkpoint for each one missing. Nothing is downloaded.'),
  ),
  SELFHOSTED_PINNED_CHECKPOINT: z
    .enum([...CHECKPOINT_NAMES, 'none'])
    .default('english')
    .describe('The one checkpoint the judge server serves, read at its start (other model names answer 422); "none" routes each request by the language of its state.'),
};
