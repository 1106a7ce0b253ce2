import { JUDGE_SERVER_KEYS } from '../../../../plugins/judge-selfhosted/server/judge-server-settings.js';
import { decimal, visibleToPlugins } from '../../../platform/config/model/field-kinds.js';

/**
 * Configuration keys of the self-hosted judge server and the synthetic-data lab. The server's are
 * declared beside it (the self-hosted judge plugin's folder) and read by `switchboard judge-server`;
 * its port reaches the plugin too, wherever it was set (environment or config file).
 */
export const JudgeKeys = {
  ...JUDGE_SERVER_KEYS,
  SELFHOSTED_HTTP_PORT: visibleToPlugins(JUDGE_SERVER_KEYS.SELFHOSTED_HTTP_PORT),
  LAB_GATE_MIN: decimal(0, 1).default(0.7).describe('Minimum probability of yes for the two gating lab questions (reader_question, answer_supported).'),
};
