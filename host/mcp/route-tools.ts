import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { PathParams, SwitchboardClient } from '../../clients/typescript/src/index.js';
import { McpToolDeclaration } from '../platform/http/mcp-tool.js';
import type { McpSettings } from './mcp-settings.js';
import { TOOL_HOOKS, type RouteRequest, type ToolHook } from './tool-hooks.js';
import { ToolRefusal } from './tool-result.js';

/** What a tool call runs with: the client (with the caller's key), the settings, and the MCP request's signal and progress. */
export interface ToolContext {
  sb: SwitchboardClient;
  settings: McpSettings;
  signal: AbortSignal;
  progress?: (message: string) => Promise<void>;
}

/** A tool of the adapter: its MCP definition (tools/list) and its call (tools/call). */
export interface RouteTool {
  readonly definition: Tool;
  /** `GET /fax/{id}`: the request the tool makes (its hook may make others). */
  readonly route: string;
  /** The scope the route needs (its `x-required-scope`). */
  readonly scope: string;
  /** The hook that runs the tool instead of the plain request, if any (tool-hooks.ts). */
  readonly hook: string | undefined;
  /** Where each route argument goes in the request (`job_id` → the path's `id`); a hook's own arguments are not listed. */
  readonly bindings: McpToolDeclaration['arguments'];
  run(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const built = new WeakMap<object, RouteTool[]>();

/**
 * The tools of a gateway, from its /openapi.json: one per operation that carries an `x-mcp-tool`
 * (a route marked for MCP), in the document's order. The gateway's /mcp and `switchboard mcp`
 * both build them here, from the same document.
 */
export function routeTools(document: object): RouteTool[] {
  let tools = built.get(document);
  if (!tools) built.set(document, (tools = buildTools(document)));
  return tools;
}

function buildTools(document: object): RouteTool[] {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  const tools: RouteTool[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const fields = operation as Record<string, unknown>;
      const extension = METHODS.has(method) ? fields['x-mcp-tool'] : undefined;
      if (extension !== undefined) tools.push(routeTool(method.toUpperCase(), path, McpToolDeclaration.parse(extension), String(fields['x-required-scope'])));
    }
  }
  return tools;
}

/** The arguments a hook adds, as JSON Schema properties. */
function hookArguments(hook: ToolHook | undefined): { properties: Record<string, object>; required: string[] } {
  if (!hook?.arguments) return { properties: {}, required: [] };
  const json = z.toJSONSchema(z.object(hook.arguments), { io: 'input' }) as { properties?: Record<string, object>; required?: string[] };
  return { properties: json.properties ?? {}, required: json.required ?? [] };
}

function routeTool(method: string, path: string, declaration: McpToolDeclaration, scope: string): RouteTool {
  const hook = declaration.hook === undefined ? undefined : TOOL_HOOKS[declaration.hook];
  if (declaration.hook !== undefined && !hook) throw new Error(`${method} ${path}: the MCP tool ${declaration.name} names the hook ${declaration.hook}, which host/mcp/tool-hooks.ts does not have`);
  const added = hookArguments(hook);
  for (const name of Object.keys(added.properties)) if (declaration.arguments[name]) throw new Error(`${method} ${path}: the hook ${declaration.hook} adds the argument ${name}, which the route has already`);
  const { properties, required = [], ...rest } = declaration.inputSchema;
  const inputSchema = { ...rest, type: 'object' as const, properties: { ...(properties as Record<string, object>), ...added.properties }, required: [...required, ...added.required] };
  if (!inputSchema.required.length) delete (inputSchema as { required?: string[] }).required;
  const definition: Tool = {
    name: declaration.name,
    description: hook?.note ? `${declaration.description} ${hook.note}` : declaration.description,
    inputSchema,
    annotations: declaration.annotations,
  };
  return {
    definition,
    route: `${method} ${path}`,
    scope,
    hook: declaration.hook,
    bindings: declaration.arguments,
    async run(args, context) {
      for (const name of inputSchema.required ?? []) if (args[name] === undefined || args[name] === null) throw new ToolRefusal(`${name} is required`);
      const request = routeRequest(declaration, args);
      const send = () => {
        if (Object.keys(request.fields).length) throw new Error(`${method} ${path} takes a form: its tool sends it through its hook`);
        return context.sb.request(method, path, { params: request.params, query: request.query, ...(request.json ? { json: request.json } : {}), signal: context.signal });
      };
      return hook ? hook.run({ args, request, send, ...context }) : send();
    },
  };
}

/** The route's request filled from a call's arguments, each where its binding says. */
function routeRequest(declaration: McpToolDeclaration, args: Record<string, unknown>): RouteRequest {
  const request: RouteRequest = { params: {}, query: {}, fields: {} };
  for (const [argument, binding] of Object.entries(declaration.arguments)) {
    // A route that takes a JSON body is sent one, even when no field of it was given.
    if (binding.in === 'body') request.json ??= {};
    const value = args[argument];
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (binding.in === 'path') request.params[binding.name] = typeof value === 'number' || typeof value === 'boolean' ? value : text satisfies PathParams[string];
    else if (binding.in === 'query') request.query[binding.name] = value;
    else if (binding.in === 'body') request.json![binding.name] = value;
    else request.fields[binding.name] = text;
  }
  return request;
}
