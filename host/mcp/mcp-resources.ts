import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, type SwitchboardClient } from '../../clients/typescript/src/index.js';
import { maskSecretsDeep } from '../platform/logging/secret-detector.js';

/** What a resource read needs: the client with the caller's key, and the audit of each read. */
export interface ResourceDeps {
  sb: SwitchboardClient;
  audit(what: string, outcome: 'ok' | 'error', code?: string): void;
}

/** Reads a resource: its API answer as JSON text; errors carry the API's detail. */
async function resourceJson(uri: URL, deps: ResourceDeps, read: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    const body = await read();
    deps.audit(`resource:${uri.protocol}//${uri.host}`, 'ok');
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
  } catch (error) {
    deps.audit(`resource:${uri.protocol}//${uri.host}`, 'error', error instanceof ApiError ? error.code : 'internal_error');
    // The SDK answers a thrown error as a JSON-RPC error with this message.
    throw new Error(error instanceof ApiError ? `${error.detail} (${error.code})` : 'the resource could not be read (see the gateway log)');
  }
}

/**
 * Resources: the OpenAPI document, and a repository's recent traces (GET /api/traces, one by name,
 * the latest), each read through the API with the caller's key (traces need search:read).
 */
export function registerResources(server: McpServer, deps: ResourceDeps): void {
  const { sb } = deps;
  server.registerResource('openapi', 'switchboard://openapi.json', { title: 'The gateway\'s OpenAPI document (GET /openapi.json)', mimeType: 'application/json' }, (uri) =>
    resourceJson(uri, deps, () => sb.request('GET', '/openapi.json')),
  );
  const repoOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';
  server.registerResource(
    'traces',
    new ResourceTemplate('switchboard://traces/{repo}', { list: undefined }),
    { title: 'Recent traces of a repository, newest first (GET /api/traces; scope search:read)', mimeType: 'application/json' },
    (uri, { repo }) =>
      resourceJson(uri, deps, async () => {
        const listing = await sb.request<{ repo: string; files: Array<{ name: string; mtime: string }> }>('GET', '/api/traces', { query: { repo: repoOf(repo) } });
        return { repo: listing.repo, traces: listing.files.slice(0, 50).map((f) => ({ name: f.name, mtime: f.mtime, uri: `switchboard://traces/${encodeURIComponent(listing.repo)}/${f.name}` })) };
      }),
  );
  server.registerResource(
    'trace',
    new ResourceTemplate('switchboard://traces/{repo}/{name}', { list: undefined }),
    { title: 'One trace of a repository by file name, or `latest` (GET /api/traces/{name}; scope search:read)', mimeType: 'application/json' },
    (uri, { repo, name }) =>
      resourceJson(uri, deps, async () => {
        const file = repoOf(name);
        const query = { repo: repoOf(repo) };
        return maskSecretsDeep(await (file === 'latest' ? sb.request('GET', '/api/traces/latest', { query }) : sb.request('GET', '/api/traces/{name}', { params: { name: file }, query })));
      }),
  );
}
