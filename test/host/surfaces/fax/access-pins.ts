import type { AccessPin } from '../../../support/access-pins.js';

/**
 * The access of the fax surface's routes, written by hand: method and path as /openapi.json names them, then
 * `public`, `loopback` or the scope a key needs (`admin`: an administrative route, refused to other
 * sites for every method, reads included). test/host/platform/auth/access.test.ts fails for a
 * route without its line. One line per route.
 */
export const ACCESS_PINS: AccessPin[] = [
  ['POST /fax', 'fax:send'],
  ['POST /fax/prepare', 'fax:send'],
  ['POST /fax/approvals/{id}/send', 'fax:send'],
  ['GET /fax/{id}', 'fax:read'],
  ['GET /fax/batches/{id}', 'fax:read'],
  ['GET /fax/{id}/pdf', 'public'], // the provider fetches it with the job's token
  ['GET /fax/{id}/report', 'fax:read'], // the sender's transmission report
  ['POST /providera-callback', 'public'], // signed by the provider
  ['POST /providerc-callback', 'public'], // signed by the provider
  ['POST /providera-inbound', 'public'],
  ['POST /providerb-inbound', 'public'],
  ['POST /_internal/pbx/inbound', 'public'],
  ['GET /inbound', 'inbound:list'],
  ['GET /inbound/{id}', 'inbound:read'],
  ['GET /inbound/{id}/pdf', 'public'], // a download token, or a key with inbound:read (checked by the route)
  ['POST /admin/fax-jobs/{id}/refresh', 'admin', 'admin'],
  ['GET /admin/fax-activity', 'admin', 'admin'],
  ['GET /admin/fax-jobs', 'admin', 'admin'],
  ['GET /admin/fax-jobs/{id}', 'admin', 'admin'],
  ['GET /admin/fax-jobs/{id}/pdf', 'admin', 'admin'],
  ['POST /_internal/freeswitch/outbound_result', 'public'], // X-Internal-Secret, checked by pbxb
  ['POST /webhooks/{pluginId}/callback', 'public'], // checked by the plugin (signature, secret)
  ['POST /webhooks/{pluginId}/inbound', 'public'], // checked by the plugin
  ['GET /admin/mailboxes', 'admin', 'admin'],
  ['POST /admin/mailboxes', 'admin', 'admin'],
  ['GET /admin/mailboxes/{name}', 'admin', 'admin'],
  ['PUT /admin/mailboxes/{name}', 'admin', 'admin'],
  ['DELETE /admin/mailboxes/{name}', 'admin', 'admin'],
  ['GET /admin/inbound-deliveries', 'admin', 'admin'],
  ['GET /admin/inbound-deliveries/{id}', 'admin', 'admin'],
  ['POST /admin/inbound-deliveries/{id}/redeliver', 'admin', 'admin'],
  ['POST /fax/{id}/cancel', 'fax:send'],
  ['POST /fax/{id}/resend', 'fax:send'],
  ['DELETE /fax/{id}/document', 'fax:send'],
  ['DELETE /inbound/{id}', 'inbound:read'],
  ['POST /webhooks/subscriptions', 'webhooks:manage'],
  ['GET /webhooks/subscriptions', 'webhooks:manage'],
  ['GET /webhooks/subscriptions/{id}', 'webhooks:manage'],
  ['DELETE /webhooks/subscriptions/{id}', 'webhooks:manage'],
  ['GET /webhooks/deliveries', 'webhooks:manage'],
  ['GET /webhooks/deliveries/{id}', 'webhooks:manage'],
  ['POST /webhooks/deliveries/{id}/redeliver', 'webhooks:manage'],
];
