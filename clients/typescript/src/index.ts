/**
 * The client of the Switchboard gateway's HTTP API: openapi-fetch over the types openapi-typescript
 * generated from /openapi.json (src/schema.d.ts), one ApiError, run-time requests for adapters,
 * server-sent events, multipart uploads with progress and the fax approval flow.
 */
export { ApiError } from './api-error.js';
export { fillPath, queryString, type PathParams, type QueryParams } from './api-path.js';
export type { AnswerQuestion, AnswerStreamHandlers } from './answers.js';
export { createSwitchboardClient, unwrap, type SwitchboardClient } from './client.js';
export { readEvents, type ServerEvent } from './events.js';
export { verifyWebhookSignature, type WebhookVerdict, type WebhookVerification } from './webhook-signature.js';
export type { ApprovalExpectation, FaxCalls, FaxDocument, SendFaxOptions } from './fax.js';
export type { ApiRequests, DownloadOptions, RequestOptions } from './requests.js';
export type * from './responses.js';
export type { components, operations, paths } from './schema.js';
export type { SwitchboardClientOptions } from './transport.js';
