/**
 * switchboard/sdk/fax: the shared parts of fax providers. The contract itself (FaxProvider,
 * FAX_CONTRACT, ...) is in switchboard/sdk with every other kind's; what is here is how fax
 * providers do their work, so each plugin keeps only its own protocol.
 *
 * - hosted (REST) providers: HostedFaxApi and the outcome rules of a failed call;
 * - PBX providers (AMI, ESL): ReconnectingLine, ReplyWaiters, dialOut and FaxResultTable;
 * - a provider started with only its inbound settings: inboundOnlyFax, inboundOnlyPlugin, startAsSettingsAllow.
 */
export { NEVER_CONNECTED, transportFailure, answerFailure, retryAfterMs, type CallSubject } from './send-outcome.js';
export { HostedFaxApi, basicAuthorization, type HostedFaxProvider, type HostedFaxConnection, type ApiAnswer } from './hosted-fax-api.js';
export { readDocumentFile, namesDocumentOfJob } from './fax-document.js';
export { statusWords, providerStatus } from './provider-status.js';
export { hostedFaxSettings, pbxFaxSettings, pbxFaxEnv } from './fax-settings.js';
export { FaxResultTable } from './fax-result-table.js';
export { ReconnectBackoff } from './reconnect-backoff.js';
export { ReplyWaiters } from './reply-waiters.js';
export { ReconnectingLine, LineNotConnectedError, LineNoReplyError, type LineOptions, type LineHandshake } from './reconnecting-line.js';
export { dialOut, dialableNumber, PbxFax, type DialOutOptions, type DialTiff, type PbxFaxOptions } from './dial-out.js';
export { inboundOnlyFax, inboundOnlyPlugin, startAsSettingsAllow, type InboundHooks, type SplitSettings } from './inbound-only.js';
