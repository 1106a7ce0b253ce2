import type { AccessPin } from '../../../support/access-pins.js';

/**
 * The access of the workbench's routes, written by hand: method and path as /openapi.json names them, then
 * `public`, `loopback` or the scope a key needs (`admin`: an administrative route, refused to other
 * sites for every method, reads included). test/host/platform/auth/access.test.ts fails for a
 * route without its line. One line per route.
 */
export const ACCESS_PINS: AccessPin[] = [
  ['GET /admin/alerts', 'admin', 'admin'],
  ['GET /admin/alerts/deliveries', 'admin', 'admin'],
  ['POST /admin/alerts/test', 'admin', 'admin'],
  ['GET /admin/integrations/webhooks', 'admin', 'admin'],
  ['PUT /admin/integrations/webhooks', 'admin', 'admin'],
  ['POST /admin/integrations/webhooks/targets', 'admin', 'admin'],
  ['DELETE /admin/integrations/webhooks/targets/{id}', 'admin', 'admin'],
  ['GET /api/docker/status', 'loopback'],
  ['GET /api/docker/services', 'loopback'],
  ['POST /api/docker/services/{service}/{action}', 'loopback'],
  ['GET /api/docker/services/{service}/logs', 'loopback'],
  ['GET /api/dev/status', 'loopback'],
  ['GET /api/ready', 'public'],
  ['POST /api/lab/runs', 'judge:run'],
  ['GET /api/lab/runs/{id}', 'judge:run'],
  ['POST /api/lab/runs/{id}/retry', 'judge:run'],
  ['GET /api/judges', 'judge:run'],
  ['GET /api/index/{corpus_id}/runs/latest', 'search:read'],
  ['GET /api/index/{corpus_id}/runs/{run_id}', 'search:read'],
  ['POST /api/index/{corpus_id}/runs/{run_id}/costs/reconcile', 'search:index'],
  ['POST /api/index/{corpus_id}/schema-proposal', 'search:index'],
  ['DELETE /api/index/{corpus_id}', 'search:index'],
];
