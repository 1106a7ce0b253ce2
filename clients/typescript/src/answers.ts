import { ApiError } from './api-error.js';
import { isEventStream, readEvents } from './events.js';
import type { ApiRequests } from './requests.js';
import type { Answer } from './responses.js';

export interface AnswerQuestion {
  question: string;
  repo?: string;
  top_k?: number;
}

export interface AnswerStreamHandlers {
  /** Text of the answer as it is written; a returned promise is awaited before the next event. */
  onToken?: (text: string) => unknown;
  /** A fallback replaces the text sent so far. */
  onReset?: () => unknown;
  signal?: AbortSignal;
}

/**
 * POST /api/rag with stream=true: tokens to the handlers as they come, then the final answer.
 * An `error` event throws ApiError with its code; a stream that ends without `final` throws
 * `stream_incomplete`.
 */
export async function streamAnswer(requests: ApiRequests, question: AnswerQuestion, handlers: AnswerStreamHandlers = {}): Promise<Answer> {
  const { signal } = handlers;
  const response = await requests.raw('POST', '/api/rag', { json: { ...question, stream: true }, headers: { accept: 'text/event-stream' }, ...(signal ? { signal } : {}) });
  if (!isEventStream(response)) return (await response.json()) as Answer;
  for await (const { event, data } of readEvents(response)) {
    const fields = (data ?? {}) as { text?: unknown; detail?: unknown; code?: unknown; status?: unknown };
    if (event === 'token') await handlers.onToken?.(String(fields.text ?? ''));
    else if (event === 'reset') await handlers.onReset?.();
    else if (event === 'final') return data as Answer;
    else if (event === 'error') throw new ApiError(Number(fields.status) || 500, String(fields.detail ?? 'the answer failed'), String(fields.code ?? 'internal_error'));
  }
  throw new ApiError(502, 'the answer stream ended without a final event', 'stream_incomplete');
}
