import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../../clients/typescript/src/index.js';
import { maskPhone } from '../platform/logging/text-masking.js';

/** A refusal of the adapter itself (a document outside the outbox, a missing argument), reported as a tool error with this detail. */
export class ToolRefusal extends Error {}

/** Fields of an answer that hold a phone number: a fax job's and a preview's `to`, an inbound fax's `from` and `to`. */
const NUMBER_FIELDS = new Set(['to', 'from']);

/**
 * An answer with every phone number masked as prepare_fax's preview masks it (`***` and the last
 * four digits), whichever route and scopes it came from: an AI client never gets a number in full.
 */
export function maskAnswerNumbers<T>(value: T, depth = 0): T {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => maskAnswerNumbers(item, depth + 1)) as T;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, NUMBER_FIELDS.has(key) && typeof field === 'string' && field ? maskPhone(field) : maskAnswerNumbers(field, depth + 1)]),
  ) as T;
}

/** A tool's answer, numbers masked: its JSON as text, and as structured content when it is an object. */
export function toolResult(answer: unknown): CallToolResult {
  const value = maskAnswerNumbers(answer);
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
