/**
 * Fixed webhook paths a fax plugin may claim as aliases of `POST /webhooks/<id>/<kind>`: a path
 * a provider or a dialplan is already configured to call. They may not reach into the host's
 * own namespaces, so a manifest can never shadow an API route.
 */
export const RESERVED_PATH_ROOTS = ['/api', '/admin', '/fax', '/inbound', '/plugins', '/plugin-registry', '/webhooks', '/health', '/metrics', '/openapi.json', '/docs'] as const;

const SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** Why `path` cannot be a webhook alias, or undefined when it can. */
export function webhookAliasPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return `alias path ${JSON.stringify(path)} must start with "/"`;
  if (path.length > 200) return 'alias path must be at most 200 characters';
  const segments = path.slice(1).split('/');
  if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) {
    return `alias path ${JSON.stringify(path)} must be literal segments of letters, digits and "._~-" (no ":" parameters, "*", query, empty or dot segments)`;
  }
  const lower = path.toLowerCase();
  const root = RESERVED_PATH_ROOTS.find((r) => lower === r || lower.startsWith(`${r}/`));
  if (root) return `alias path ${JSON.stringify(path)} lies under the host's own ${root}`;
  return undefined;
}
