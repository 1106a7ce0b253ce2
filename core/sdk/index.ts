/**
 * switchboard/sdk: everything a plugin author uses, of every kind. A plugin imports nothing else of ours
 * but the subpath of its kind's shared parts (`switchboard/sdk/fax`).
 */
export * from './contracts/index.js';
export * from './errors.js';
export * from './health.js';
export * from './plugin.js';
export { secret, isSecretSchema, secretFields, envOnly, envOnlyFields, dataPath, dataPathFields, credentialOf, credentialFields, SECRET_MASK, booleanSetting, singleLineText, requireSettings, missingSettings, needsSettings, envByFieldName } from './settings.js';
export { z } from 'zod';
export { readBodyCapped, BodyTooLargeError } from './read-body-capped.js';
export { maskNumbers } from './number-mask.js';
export { syncDirectory } from './sync-directory.js';
export { sameSecret, hmacHexMatches, basicAuthMatches } from './webhook-auth.js';
export { parseWebhookJson, allowedMediaHosts, callbackUpdate, formCallbackUpdate, type CallbackFieldNames } from './webhook-body.js';
export { checkInternalSecret, INTERNAL_SECRET_HEADER } from './internal-secret.js';
