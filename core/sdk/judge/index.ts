/**
 * switchboard/sdk/judge: the client rules every judgment backend shares (the `/v1/systemone`
 * wire format, retries within a time budget, typed failures, answer validation).
 */
export { SystemOneError, isSystemOneError, type SystemOneOutcome } from './system-one-error.js';
export { SystemOneRequestBody, SystemOneAnswerBody, parseAnswer, requestBody } from './system-one-wire.js';
export { createSystemOneClient, backoffDelayMs, type SystemOneClientOptions } from './system-one-client.js';
export { serverRetryDelayMs } from '../retry-after.js';
