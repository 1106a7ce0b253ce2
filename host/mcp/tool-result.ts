import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../../clients/typescript/src/index.js';

/** A refusal of the adapter itself (a document outside the outbox, a missing argument), reported as a tool error with this detail. */
export class ToolRefusal extends Error {}

/** A tool's answer: its JSON as text, and as structured content when it is an object. */
export function toolResult(value: unknown): CallToolResult {
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], ...(structured ? { structuredContent: value as Record<string, unknown> } : {}) };
}

/** The code a failed call is audited with: the API's, `refused`, or `internal_error`. */
export function failureCode(error: unknown): string {
  return error instanceof ApiError ? error.code : error instanceof ToolRefusal ? 'refused' : 'internal_error';
}

/** A failed call as a tool error: the API's `detail` and `code` (or the refusal's), never a stack. */
export function toolError(error: unknown): CallToolResult {
  const detail = error instanceof ApiError ? error.detail : error instanceof ToolRefusal ? error.message : 'the tool failed (see the gateway log)';
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ detail, code: failureCode(error) }) }] };
}
