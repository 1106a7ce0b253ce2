import type { AccessPin } from '../../support/access-pins.js';

/**
 * The access of the platform's routes, written by hand: method and path as /openapi.json names them, then
 * `public`, `loopback` or the scope a key needs (`admin`: an administrative route, refused to other
 * sites for every method, reads included). test/host/platform/auth/access.test.ts fails for a
 * route without its line. One line per route.
 */
export const ACCESS_PINS: AccessPin[] = [
  ['GET /health', 'public'],
  ['GET /health/ready', 'public'],
  ['GET /metrics', 'public'],
  ['POST /admin/api-keys', 'keys:manage', 'admin'],
  ['GET /admin/api-keys', 'keys:manage', 'admin'],
  ['DELETE /admin/api-keys/{keyId}', 'keys:manage', 'admin'],
  ['PATCH /admin/api-keys/{keyId}', 'keys:manage', 'admin'],
  ['POST /admin/api-keys/{keyId}/rotate', 'keys:manage', 'admin'],
  ['POST /plugins/validate', 'plugins:manage', 'admin'],
  ['PUT /plugins/{id}/config', 'plugins:manage', 'admin'],
  ['POST /plugins/{id}/config/test', 'plugins:manage', 'admin'],
  ['POST /plugin-registry/{id}/install', 'plugins:manage', 'admin'],
  ['DELETE /plugin-registry/{id}', 'plugins:manage', 'admin'],
  ['POST /plugin-registry/install', 'plugins:manage', 'admin'],
  ['GET /plugins/{id}/versions', 'admin', 'admin'],
  ['POST /plugins/{id}/rollback', 'plugins:manage', 'admin'],
  ['PUT /plugins/{id}/pin', 'plugins:manage', 'admin'],
  ['GET /plugins', 'admin', 'admin'],
  ['GET /plugins/{id}', 'admin', 'admin'],
  ['GET /plugins/{id}/config', 'admin', 'admin'],
  ['GET /plugin-registry', 'admin', 'admin'],
  ['GET /api/config', 'admin', 'admin'],
  ['POST /api/config', 'admin', 'admin'],
  ['GET /admin/settings', 'admin', 'admin'],
  ['PUT /admin/settings', 'admin', 'admin'],
  ['POST /admin/settings/validate', 'admin', 'admin'],
  ['POST /admin/settings/reload', 'admin', 'admin'],
  ['GET /admin/settings/export', 'admin', 'admin'],
  ['POST /admin/settings/persist', 'admin', 'admin'],
  ['GET /admin/health-status', 'admin', 'admin'],
  ['GET /admin/db-status', 'admin', 'admin'],
  ['POST /admin/diagnostics/run', 'admin', 'admin'],
  ['POST /admin/restart', 'admin', 'admin'],
  ['GET /admin/logs', 'admin', 'admin'],
  ['GET /admin/logs/tail', 'admin', 'admin'],
  ['POST /plugins/install', 'plugins:manage', 'admin'], // Faxbot's install call
];
