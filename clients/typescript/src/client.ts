import createClient, { type Client } from 'openapi-fetch';
import { streamAnswer, type AnswerQuestion, type AnswerStreamHandlers } from './answers.js';
import { apiErrorOf } from './api-error.js';
import { createFaxCalls, type FaxCalls } from './fax.js';
import { createRequests, type ApiRequests } from './requests.js';
import type { Answer } from './responses.js';
import type { paths } from './schema.js';
import { createTransport, type SwitchboardClientOptions } from './transport.js';

/**
 * The generated, typed calls (GET, POST, ... by path, answering `{ data, error, response }`),
 * the run-time `request`/`raw`/`download`/`events`, and the fax and answer helpers. Every one of
 * them goes out through one transport: the base URL, the key, the headers and fetch.
 */
export type SwitchboardClient = Omit<Client<paths>, 'request'> &
  ApiRequests &
  FaxCalls & {
    /** POST /api/rag with stream=true: tokens to the handlers as they come, then the final answer. */
    streamAnswer(question: AnswerQuestion, handlers?: AnswerStreamHandlers): Promise<Answer>;
  };

export function createSwitchboardClient(options: SwitchboardClientOptions): SwitchboardClient {
  const transport = createTransport(options);
  const requests = createRequests(transport);
  const typed = createClient<paths>({ baseUrl: transport.baseUrl, fetch: (request) => transport.send(request) });
  const helpers = { ...requests, ...createFaxCalls(requests), streamAnswer: (question: AnswerQuestion, handlers?: AnswerStreamHandlers) => streamAnswer(requests, question, handlers) };
  return Object.assign(typed, helpers) as unknown as SwitchboardClient;
}

/** The data of a generated call, or its ApiError: `const job = await unwrap(sb.GET('/fax/{id}', ...))`. */
export async function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<R> | R): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw apiErrorOf(response.status, error, response.statusText);
  return data as Exclude<R['data'], undefined>;
}
