import type { AccessPin } from '../../../support/access-pins.js';

/**
 * The access of the code-search surface's routes, written by hand: method and path as /openapi.json names them, then
 * `public`, `loopback` or the scope a key needs (`admin`: an administrative route, refused to other
 * sites for every method, reads included). test/host/platform/auth/access.test.ts fails for a
 * route without its line. One line per route.
 */
export const ACCESS_PINS: AccessPin[] = [
  ['GET /api/search', 'search:read'],
  ['GET /api/symbols', 'search:read'],
  ['GET /api/definitions', 'search:read'],
  ['GET /api/references', 'search:read'],
  ['GET /api/files', 'search:read'],
  ['GET /api/tree', 'search:read'],
  ['GET /api/grep', 'search:read'],
  ['GET /api/editor/settings', 'admin', 'admin'],
  ['GET /api/keywords', 'search:read'],
  ['POST /api/keywords/rebuild', 'search:index'],
  ['POST /api/keywords/reload', 'admin', 'admin'],
  ['GET /api/traces', 'search:read'],
  ['GET /api/traces/latest', 'search:read'],
  ['GET /api/traces/{name}', 'search:read'],
  ['POST /api/eval/run', 'search:read'], // `name` and `save_as_baseline` need search:evaluate (checked by the route)
  ['POST /api/eval/runs', 'search:read'],
  ['GET /api/eval/runs/{id}', 'search:read'],
  ['POST /api/index/start', 'search:index'],
  ['GET /api/repos', 'search:admin'],
  ['POST /api/repos', 'search:admin'], // clones a remote: the outbound guard applies too
  ['POST /api/repos/{name}/fetch', 'search:admin'],
  ['DELETE /api/repos/{name}', 'search:admin'],
  ['GET /api/index/status', 'search:read'],
  ['POST /api/eval/rerank-ab', 'judge:run'], // every candidate costs a judge call
  ['POST /api/rag', 'search:answer'], // answers can spend gateway money
  ['POST /api/chat', 'search:answer'],
];
