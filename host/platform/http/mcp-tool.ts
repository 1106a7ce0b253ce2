import { z } from 'zod';
import type { HttpMethod, RouteAccess } from './api.js';

/**
 * A route marked for MCP: the MCP adapter (host/mcp) offers it as a tool. The tool's arguments
 * are the route's path parameters, query and JSON body (or a multipart route's text fields)
 * merged into one object, so a change to the route's schemas reaches the tool without an edit.
 */
export interface McpToolMarker {
  /** The tool's name (`get_fax_status`). */
  name: string;
  /** What the tool does; default: the route's summary. The method, path and scope are appended. */
  description?: string;
  /** MCP's hints; defaults from the method (a GET reads only, a DELETE destroys, GET/PUT/DELETE repeat safely). */
  annotations?: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean };
  /** Tool arguments named otherwise than the route's input they fill: `{ job_id: 'id' }` (the path's `:id`). */
  aliases?: Record<string, string>;
  /** Route inputs the tool does not take: its hook sets them (`stream`), or its hook's arguments replace them (a form's `file`). */
  omit?: string[];
  /** Route inputs (by tool argument name) the tool may leave out: its hook then goes another way. */
  optional?: string[];
  /** A hook of the MCP adapter (host/mcp/tool-hooks.ts) that runs the tool instead of the plain request; a multipart route needs one. */
  hook?: string;
}

/** Where a tool argument goes in the route's request. */
const ArgumentBinding = z.object({ in: z.enum(['path', 'query', 'body', 'form']), name: z.string() });

/**
 * The `x-mcp-tool` extension of an operation in /openapi.json: the marker with everything the
 * tool builder needs, so a process that only reads the document (`switchboard mcp`) builds the
 * same tools as the gateway.
 */
export const McpToolDeclaration = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
  description: z.string(),
  annotations: z.object({ readOnlyHint: z.boolean(), destructiveHint: z.boolean(), idempotentHint: z.boolean(), openWorldHint: z.boolean() }),
  /** The tool's input as a JSON Schema object (z.toJSONSchema of the route's input schemas). */
  inputSchema: z.looseObject({ type: z.literal('object'), properties: z.record(z.string(), z.unknown()), required: z.array(z.string()).optional() }),
  arguments: z.record(z.string(), ArgumentBinding),
  hook: z.string().optional(),
});
export type McpToolDeclaration = z.infer<typeof McpToolDeclaration>;

/** What of a route the declaration is derived from (a RouteSpec's fields). */
export interface MarkedRoute {
  method: HttpMethod;
  path: string;
  summary: string;
  access: RouteAccess;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  rawBody?: { contentType: string; schema?: z.ZodType };
  mcp: McpToolMarker;
}

type JsonObjectSchema = { type?: unknown; properties?: Record<string, unknown>; required?: string[]; $defs?: Record<string, unknown> };

/** The JSON Schema of one input part; an object schema, or the route is refused (a tool's input is one object). */
function objectSchemaOf(schema: z.ZodType, part: string, route: string): JsonObjectSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObjectSchema;
  if (json.type !== 'object' || !json.properties) throw new Error(`${route}: the ${part} of a route marked for MCP must be an object schema`);
  return json;
}

function accessText(access: RouteAccess): string {
  if (access === 'public') return 'no key needed';
  if (access === 'loopback') return 'loopback callers, or scope admin';
  return `scope ${access.scope}`;
}

/** The `x-mcp-tool` declaration of a marked route; throws on a marker that does not fit its route (at declaration, not at a call). */
export function mcpToolDeclaration(route: MarkedRoute): McpToolDeclaration {
  const { mcp } = route;
  const openApiPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const where = `${route.method.toUpperCase()} ${openApiPath}`;
  const argumentOf = new Map(Object.entries(mcp.aliases ?? {}).map(([argument, input]) => [input, argument]));
  const omitted = new Set(mcp.omit ?? []);
  const formSchema = route.rawBody?.contentType === 'multipart/form-data' ? route.rawBody.schema : undefined;
  if (route.rawBody && !mcp.hook) throw new Error(`${where}: a route whose body is not JSON becomes a tool only through a hook`);
  const parts: Array<[z.ZodType | undefined, 'path' | 'query' | 'body' | 'form']> = [[route.params, 'path'], [route.query, 'query'], [route.body, 'body'], [formSchema, 'form']];
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  const defs: Record<string, unknown> = {};
  const bindings: McpToolDeclaration['arguments'] = {};
  const inputs = new Set<string>();
  for (const [schema, part] of parts) {
    if (!schema) continue;
    const json = objectSchemaOf(schema, part, where);
    // An optional body may be left out whole: none of its fields is required of the tool.
    const partRequired = part === 'body' && schema.safeParse(undefined).success ? [] : (json.required ?? []);
    Object.assign(defs, json.$defs);
    for (const [input, property] of Object.entries(json.properties!)) {
      inputs.add(input);
      if (omitted.has(input)) continue;
      const argument = argumentOf.get(input) ?? input;
      if (bindings[argument]) throw new Error(`${where}: the tool argument ${argument} would fill both ${bindings[argument]!.in} ${bindings[argument]!.name} and ${part} ${input} (give one an alias)`);
      bindings[argument] = { in: part, name: input };
      properties[argument] = property;
      if (partRequired.includes(input)) required.add(argument);
    }
  }
  for (const name of [...(mcp.optional ?? []), ...Object.keys(mcp.aliases ?? {})]) if (!bindings[name]) throw new Error(`${where}: the MCP marker names the argument ${name}, which fills no input of the route`);
  for (const name of omitted) if (!inputs.has(name)) throw new Error(`${where}: the MCP marker omits ${name}, which is no input of the route`);
  for (const name of mcp.optional ?? []) required.delete(name);
  const method = route.method;
  const hints = mcp.annotations ?? {};
  return {
    name: mcp.name,
    description: `${mcp.description ?? route.summary} (${where}; ${accessText(route.access)}).`,
    annotations: {
      readOnlyHint: hints.readOnly ?? method === 'get',
      destructiveHint: hints.destructive ?? method === 'delete',
      idempotentHint: hints.idempotent ?? (method === 'get' || method === 'put' || method === 'delete'),
      openWorldHint: hints.openWorld ?? false,
    },
    inputSchema: { type: 'object', properties, ...(required.size ? { required: [...required] } : {}), ...(Object.keys(defs).length ? { $defs: defs } : {}) },
    arguments: bindings,
    ...(mcp.hook ? { hook: mcp.hook } : {}),
  };
}
