import { envOnly } from '../../../../core/sdk/settings.js';
import { z } from 'zod';
import { decimal, integer, optionalText } from '../../../platform/config/model/field-kinds.js';

/** Configuration keys of the self-hosted judge server and the synthetic-data lab. */
export const JudgeKeys = {
  SELFHOSTED_HTTP_PORT: integer(0, 65535).default(58180).describe('Loopback port of the self-hosted judge server (switchboard judge-server); the self-hosted judge plugin (system_one.provider selfhosted) calls it there. 0: the server picks a free port and logs it ("judge server listening", `port`); for tests, since the plugin cannot call port 0.'),
  SELFHOSTED_CHECKPOINTS_DIR: envOnly(optionalText().describe('Directory holding the judge checkpoints as <name>/model.onnx + tokenizer.json; unset means DATA_DIR/judge-checkpoints, where switchboard judge-server writes a demo checkpoint for each one missing. Nothing is downloaded.')),
  SELFHOSTED_PINNED_CHECKPOINT: z
    .enum(['english', 'multilingual', 'typed-decisions', 'none'])
    .default('english')
    .describe('The one checkpoint the judge server serves (other model names answer 422); "none" routes each request by the language of its state.'),
  LAB_GATE_MIN: decimal(0, 1).default(0.7).describe('Minimum probability of yes for the two gating lab questions (reader_question, answer_supported).'),
};
