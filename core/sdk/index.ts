/**
 * switchboard/sdk: everything a plugin author uses. A plugin imports nothing else of ours.
 */
export * from './contracts/index.js';
export * from './errors.js';
export * from './health.js';
export * from './plugin.js';
export { secret, isSecretSchema, secretFields, envOnly, envOnlyFields, SECRET_MASK } from './settings.js';
export { z } from 'zod';
export { sendTransportFailure, sendAnswerFailure, retryAfterMs, NEVER_CONNECTED } from './helpers/send-outcome.js';
export { FaxResultTable } from './helpers/fax-result-table.js';
export { ReconnectBackoff } from './helpers/reconnect-backoff.js';
export { maskNumbers } from './helpers/number-mask.js';
export { readBodyCapped, BodyTooLargeError } from './helpers/read-capped.js';
export { sameSecret, hmacHexMatches, basicAuthMatches } from './webhook-auth.js';
export { parseWebhookJson, allowedMediaHosts, callbackUpdate } from './webhook-body.js';
export { checkInternalSecret, INTERNAL_SECRET_HEADER } from './internal-secret.js';
