import type { AccessPin } from '../../support/access-pins.js';

/**
 * The access of the MCP adapter's route, written by hand: method and path as /openapi.json names them, then
 * `public`, `loopback` or the scope a key needs (`admin`: an administrative route, refused to other
 * sites for every method, reads included). test/host/platform/auth/access.test.ts fails for a
 * route without its line. One line per route.
 */
export const ACCESS_PINS: AccessPin[] = [
  ['POST /mcp', 'public'], // any key or MCP_API_KEY, checked by the route; each tool then needs its route's scope
];
