import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createSwitchboardClient } from '../../../clients/typescript/src/index.js';
import { HttpApi } from '../../../host/platform/http/api.js';
import { createExpressApp } from '../../../host/platform/http/app.js';
import { buildOpenApiDocument } from '../../../host/platform/http/openapi.js';
import { createLogger } from '../../../host/platform/logging/logger.js';
import { createMcpServer } from '../../../host/mcp/mcp-server.js';
import { routeTools } from '../../../host/mcp/route-tools.js';

// A small API of our own route DSL, served for real: what a marked route becomes over MCP.

const ok = { 200: { description: 'ok' } };

/** Two marked routes and one unmarked; `limitMax` and `withColour` stand for a change to a route's schema. */
function smallApi(options: { limitMax: number; withColour?: boolean }): HttpApi {
  const api = new HttpApi();
  const query = z.object({
    verbose: z.enum(['yes', 'no']).optional().describe('Say more'),
    limit: z.coerce.number().int().min(1).max(options.limitMax).optional(),
    ...(options.withColour ? { colour: z.string().max(20).optional() } : {}),
  });
  api.route(
    { method: 'get', path: '/things/:id', summary: 'One thing', tags: ['t'], access: { scope: 'things:read' }, params: z.object({ id: z.string().min(1).max(50) }), query, responses: ok, mcp: { name: 'get_thing', aliases: { thing_id: 'id' } } },
    ({ params, query }) => ({ id: params.id, ...query }),
  );
  api.route(
    { method: 'post', path: '/things', summary: 'Make a thing', tags: ['t'], access: { scope: 'things:write' }, body: z.object({ name: z.string().min(1) }), responses: ok, mcp: { name: 'make_thing', description: 'Makes one thing' } },
    ({ body }) => ({ made: body.name }),
  );
  api.route({ method: 'get', path: '/secret-things', summary: 'Never a tool', tags: ['t'], access: { scope: 'things:read' }, responses: ok }, () => ({ secret: true }));
  return api;
}

/** The API served on a loopback port, and an MCP client of a server whose tools call it. */
async function serve(api: HttpApi): Promise<{ client: Client; url: string; close(): Promise<void> }> {
  const app = createExpressApp(api, { logger: createLogger('silent'), metrics: new Registry(), version: '1.0.0' });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sb = createSwitchboardClient({ baseUrl: url });
  const document = await sb.request<object>('GET', '/openapi.json');
  const mcp = createMcpServer({ sb, tools: () => routeTools(document), settings: { requireApproval: () => true, outboxDir: () => undefined }, audit: () => {}, version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'route-tools-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    url,
    close: async () => {
      await client.close();
      await mcp.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
  const body = JSON.parse(result.content[0]!.text);
  return result.isError ? { error: body } : body;
}

test('a marked route is a tool whose input is its path, query and body schemas; an unmarked route is no tool', async () => {
  const { client, close } = await serve(smallApi({ limitMax: 10 }));
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.map((t) => t.name), ['get_thing', 'make_thing']);
    const [getThing, makeThing] = tools as [any, any];
    assert.equal(getThing.inputSchema.required, ['thing_id'], 'the path parameter under its alias, required');
    assert.equal(getThing.inputSchema.properties.thing_id, { type: 'string', minLength: 1, maxLength: 50 });
    assert.equal(getThing.inputSchema.properties.verbose, { description: 'Say more', type: 'string', enum: ['yes', 'no'] });
    assert.is(getThing.inputSchema.properties.limit.maximum, 10);
    assert.is(getThing.description, 'One thing (GET /things/{id}; scope things:read).');
    assert.equal(getThing.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.is(makeThing.description, 'Makes one thing (POST /things; scope things:write).');
    assert.equal(makeThing.inputSchema.required, ['name']);
    assert.is(makeThing.annotations.readOnlyHint, false);
    assert.is((await call(client, 'secret_things', {})).error.code, 'unknown_tool');
  } finally {
    await close();
  }
});

test('a change to a route\'s schema reaches its tool, with no edit to the MCP adapter', async () => {
  const before = routeTools(buildOpenApiDocument(smallApi({ limitMax: 10 }), '1'))[0]!.definition.inputSchema as any;
  const after = routeTools(buildOpenApiDocument(smallApi({ limitMax: 25, withColour: true }), '1'))[0]!.definition.inputSchema as any;
  assert.is(before.properties.limit.maximum, 10);
  assert.is(after.properties.limit.maximum, 25);
  assert.not.ok(before.properties.colour);
  assert.equal(after.properties.colour, { type: 'string', maxLength: 20 });
  // And over MCP, for a client listing the tools of the changed API.
  const { client, close } = await serve(smallApi({ limitMax: 25, withColour: true }));
  try {
    const { tools } = await client.listTools();
    assert.equal(tools[0]!.inputSchema.properties?.colour, { type: 'string', maxLength: 20 });
  } finally {
    await close();
  }
});

test('a call fills the route\'s path, query and body from the arguments, and the route validates them', async () => {
  const { client, close } = await serve(smallApi({ limitMax: 10 }));
  try {
    assert.equal(await call(client, 'get_thing', { thing_id: 'a/b c', verbose: 'yes', limit: 3 }), { id: 'a/b c', verbose: 'yes', limit: 3 });
    assert.equal(await call(client, 'make_thing', { name: 'kettle' }), { made: 'kettle' });
    const tooMany = await call(client, 'get_thing', { thing_id: 'x', limit: 99 });
    assert.is(tooMany.error.code, 'validation_error', JSON.stringify(tooMany));
    assert.match(tooMany.error.detail, /limit/);
    const noName = await call(client, 'make_thing', { name: '' });
    assert.is(noName.error.code, 'validation_error', JSON.stringify(noName));
    const noId = await call(client, 'get_thing', {});
    assert.equal(noId.error, { detail: 'thing_id is required', code: 'refused' });
  } finally {
    await close();
  }
});

test('a marker that does not fit its route is refused where the route is declared', () => {
  const base = { summary: 's', tags: ['t'], access: 'public' as const, responses: ok };
  const declare = (spec: Record<string, unknown>) => () => new HttpApi().route({ ...base, method: 'get', path: '/x/:id', params: z.object({ id: z.string() }), ...spec } as never, () => ({}));
  assert.throws(declare({ mcp: { name: 'x', aliases: { x_id: 'nope' } } }), /x_id, which fills no input/);
  assert.throws(declare({ mcp: { name: 'x', omit: ['nope'] } }), /omits nope/);
  assert.throws(declare({ query: z.object({ id: z.string() }), mcp: { name: 'x' } }), /fill both path id and query id/);
  assert.throws(() => new HttpApi().route({ ...base, method: 'post', path: '/upload', rawBody: { contentType: 'multipart/form-data', schema: z.object({ file: z.string() }) }, mcp: { name: 'upload' } }, () => ({})), /only through a hook/);
  const twice = new HttpApi();
  twice.route({ ...base, method: 'get', path: '/a', mcp: { name: 'same' } }, () => ({}));
  assert.throws(() => twice.route({ ...base, method: 'get', path: '/b', mcp: { name: 'same' } }, () => ({})), /two routes are marked as the MCP tool same/);
  const unknownHook = new HttpApi();
  unknownHook.route({ ...base, method: 'get', path: '/c', mcp: { name: 'hooked', hook: 'no-such-hook' } }, () => ({}));
  assert.throws(() => routeTools(buildOpenApiDocument(unknownHook, '1')), /names the hook no-such-hook/);
});

test.run();
