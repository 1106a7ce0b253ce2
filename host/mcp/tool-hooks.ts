import type { z } from 'zod';
import type { QueryParams, PathParams, SwitchboardClient } from '../../clients/typescript/src/index.js';
import { answerWithProgress } from './answer-hook.js';
import { maskSecretsDeep } from '../platform/logging/secret-detector.js';
import { prepareFax, sendFax } from './fax-hooks.js';
import type { McpSettings } from './mcp-settings.js';

/** The route's request as a tool's arguments fill it. */
export interface RouteRequest {
  params: PathParams;
  query: QueryParams;
  /** The JSON body, when the route takes one. */
  json?: Record<string, unknown>;
  /** A multipart route's text fields (its hook adds the file). */
  fields: Record<string, string>;
}

/** One tool call as a hook sees it. */
export interface ToolCall {
  /** The arguments as the caller gave them (the hook's own among them). */
  args: Record<string, unknown>;
  request: RouteRequest;
  /** Sends the route's request and answers its JSON (the plain tool). */
  send(): Promise<unknown>;
  sb: SwitchboardClient;
  settings: McpSettings;
  /** Tells the caller how far the call is; present only when the caller asked (a progressToken). */
  progress?: (message: string) => Promise<void>;
  signal: AbortSignal;
}

/**
 * What a tool does beyond one request to its route (documents from base64 or the outbox, progress,
 * redaction), named by the route's MCP marker. Its arguments join the route's in the input schema.
 */
export interface ToolHook {
  arguments?: z.ZodRawShape;
  /** Appended to the tool's description. */
  note?: string;
  run(call: ToolCall): Promise<unknown>;
}

/** Code comes back with credential-shaped lines redacted: a key planted in a repository stays out of the client. */
const redactCredentials: ToolHook = {
  note: 'Credential-shaped text is redacted.',
  run: async (call) => maskSecretsDeep(await call.send()),
};

/** The plugin list trimmed to what an assistant needs: id, kind, state, health. */
const pluginSummaries: ToolHook = {
  run: async (call) => {
    const list = (await call.send()) as { plugins: Array<Record<string, unknown>> };
    return { plugins: list.plugins.map((p) => ({ id: p.id, kind: p.kind, state: p.state, health: p.health })) };
  },
};

/** The hooks a route's MCP marker may name (`hook: 'redact-credentials'`). */
export const TOOL_HOOKS: Readonly<Record<string, ToolHook>> = {
  'redact-credentials': redactCredentials,
  'plugin-summaries': pluginSummaries,
  'answer-with-progress': answerWithProgress,
  'prepare-fax': prepareFax,
  'send-fax': sendFax,
};
