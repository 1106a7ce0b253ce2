import type { FaxWebhookKind } from '../../../../core/sdk/index.js';

/**
 * Fixed webhook paths of the spec and of Faxbot's dialplans, kept as aliases of
 * `POST /webhooks/{pluginId}/{kind}`: the same handler, the same answers. This table is the only
 * place the host names providers.
 */
export const WEBHOOK_ALIASES: ReadonlyArray<{ path: string; pluginId: string; kind: FaxWebhookKind; contentType: string; summary: string }> = [
  { path: '/providera-callback', pluginId: 'providera', kind: 'callback', contentType: 'application/x-www-form-urlencoded', summary: 'Status callback of provider A (form data), job by ?job_id=' },
  { path: '/providerc-callback', pluginId: 'providerc', kind: 'callback', contentType: 'application/x-www-form-urlencoded', summary: 'Status callback of provider C (form data), job by ?job_id=' },
  { path: '/_internal/freeswitch/outbound_result', pluginId: 'pbxb', kind: 'callback', contentType: 'application/json', summary: "FreeSWITCH's result hook for PBX-B faxes (X-Internal-Secret, JSON)" },
  { path: '/providera-inbound', pluginId: 'providera', kind: 'inbound', contentType: 'application/json', summary: 'Inbound fax notice of provider A (JSON `{"fax": {...}}`)' },
  { path: '/providerb-inbound', pluginId: 'providerb', kind: 'inbound', contentType: 'application/json', summary: 'Inbound fax notice of provider B (JSON)' },
  { path: '/_internal/pbx/inbound', pluginId: 'sip', kind: 'inbound', contentType: 'application/json', summary: 'Inbound fax from the Asterisk dialplan (X-Internal-Secret, JSON); the TIFF must lie inside the spool' },
];
