import { z } from 'zod';
import { backendId, decimal, emptyAsUnset, integer, text, visibleToPlugins } from './field-kinds.js';

/** Configuration keys of the typed-judgment seam (section `system_one`, env `SYSTEM_ONE__*`). */
export const SystemOneKeys = {
  'system_one.provider': backendId(
    'judge',
    'Judgment backend: the id of a judge plugin, or an alias its manifest declares ("hosted", "selfhosted" for the built-ins); switches live, no restart.',
    { named: true },
  ),
  'system_one.model': text().default('system-one-latest').describe("Hosted model id, or a self-hosted checkpoint name (english, multilingual, typed-decisions); the default is the hosted provider's latest-model alias."),
  'system_one.timeout_s': decimal(0.1, 3600).default(30).describe('Seconds one judgment call may take in all, retries and backoff included.'),
  'system_one.max_concurrency': integer(1, 1024).default(16).describe('Judgment requests in flight per caller.'),
  'system_one.max_retries': integer(0, 20).default(3).describe('Retries after 408, 429, 5xx or a connection failure; 0 disables retries.'),
  'system_one.hosted_url': visibleToPlugins(z
    .preprocess(emptyAsUnset, z.url().optional())
    .describe('Base URL of the hosted judgment backend (the client posts to {hosted_url}/v1/systemone).')),
};
