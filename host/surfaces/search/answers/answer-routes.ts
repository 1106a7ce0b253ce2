import type { Response } from 'express';
import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import { AnswerCancelledError, type AnswerRequest, type AnswerService } from './answer-service.js';
import { MAX_QUESTION_CHARS } from './answer-prompt.js';
import { RETRIEVAL_ERRORS } from '../retrieval/code-search.js';


/** Most chat turns accepted in one request. */
const MAX_MESSAGES = 50;

const nonBlank = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .refine((v) => v.trim().length > 0, `${field} cannot be empty`)
    .refine((v) => v.length <= MAX_QUESTION_CHARS, `${field} is longer than ${MAX_QUESTION_CHARS} characters`);

const common = {
  repo: z.string().optional().describe('Repository name (a key of REPOS); defaults to REPO.'),
  stream: z.boolean().optional().describe('true: answer as server-sent events (text/event-stream): `token` events, then one `final` event.'),
};

const RagBody = z.object({
  question: nonBlank('question').describe(`The question, 1..${MAX_QUESTION_CHARS} characters.`),
  top_k: z.number().int().min(1).max(100).optional().describe('Chunks retrieved, 1..100; defaults to LANGGRAPH_FINAL_K.'),
  ...common,
});

const ChatBody = z.object({
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'user', 'assistant'], { error: 'role must be system, user or assistant' }),
        content: nonBlank('content'),
      }),
      { error: 'messages must be an array of {role, content}' },
    )
    .min(1, 'messages cannot be empty')
    .max(MAX_MESSAGES, `messages holds more than ${MAX_MESSAGES} turns`)
    .refine((m) => m.some((x) => x.role === 'user'), 'messages needs at least one user message')
    .describe(`The conversation, oldest first (at most ${MAX_MESSAGES} turns of 1..${MAX_QUESTION_CHARS} characters each).`),
  ...common,
});

const CitationBody = z.object({
  path: z.string().describe('Relative to the repository root; always one of the retrieved chunks.'),
  start_line: z.number().int(),
  end_line: z.number().int(),
  run_id: z.string().optional().describe('The index run that wrote the cited chunk.'),
  indexed_at: z.string().optional().describe('When that run read the file (ISO 8601).'),
  stale: z.boolean().optional().describe('true: the file changed (size or mtime) or was removed since it was indexed; the cited lines may be out of date.'),
});

export const AnswerBody = z.object({
  answer: z.string(),
  citations: z.array(CitationBody),
  mode: z.enum(['graph', 'simple', 'extractive']).describe('graph: the answer graph; simple: one generate call (graph not built or a model call failed); extractive: best snippets, no model.'),
  model: z.string().nullable().describe('GEN_MODEL when a model wrote the answer, else null.'),
  run_id: z.string().describe('One id for every gateway call of this answer (x-gateway-session-id).'),
  trace: z.string().nullable().describe('The trace file written, relative to DATA_DIR: out/<repo>/traces/<name> is the file DATA_DIR/out/<repo>/traces/<name> (null with TRACE_RETENTION=0).'),
  notes: z.array(z.string()).optional().describe('How the answer was made when not by the full path: no model (extractive, and how to turn generation on), chat history not used, stale code cited (which files).'),
  stale: z.boolean().optional().describe('true when the answer cites code whose file changed or was removed since it was indexed (those citations say stale: true, and a note names the files).'),
});

const STREAM_NOTE =
  ' With stream=true the response is text/event-stream: `event: token` (data `{"text"}`) as the answer is written, ' +
  '`event: reset` when a fallback replaces the text sent so far, then one `event: final` whose data is the JSON answer above ' +
  '(or `event: error` with `{detail, code}`). A client that disconnects cancels the model call.';

/** Both routes answer alike: an answer, or what retrieval refused before any was written. */
const answers = {
  errors: ['repository_not_found', 'corpus_deleted', ...RETRIEVAL_ERRORS],
  responses: { 200: { description: 'The answer (JSON), or server-sent events with stream=true.', schema: AnswerBody } },
};

/** POST /api/rag and POST /api/chat. */
export function registerAnswerRoutes(api: HttpApi, deps: { answers: AnswerService }): void {
  const routes = api.group({ tags: ['code-search'], access: { scope: 'search:answer' } });

  routes.route(
    {
      method: 'post',
      path: '/api/rag',
      summary: 'Answer a question about a repository\'s code, with citations',
      // The hook streams the answer when the caller asks for progress.
      mcp: { name: 'answer_question', omit: ['stream'], annotations: { readOnly: true }, hook: 'answer-with-progress' },
      description:
        'Same retrieval as GET /api/search, then GEN_MODEL writes an answer citing the chunks it used (checked against the retrieved ones). ' +
        'Modes: graph (retrieve, grade, rewrite the query once when evidence is weak, generate), simple, extractive (no model or every model call failed). ' +
        'Identical questions over an unchanged index are answered from the cache without gateway calls.' +
        STREAM_NOTE,
      body: RagBody,
      ...answers,
    },
    async ({ body, res }) => run(deps.answers, { question: body.question, ...(body.repo !== undefined ? { repo: body.repo } : {}), ...(body.top_k ? { topK: body.top_k } : {}) }, !!body.stream, res),
  );
  routes.route(
    {
      method: 'post',
      path: '/api/chat',
      summary: 'Multi-turn chat about a repository\'s code',
      description: 'The conversation is condensed into a standalone question (by GEN_MODEL; without a model, the last user message), then answered as POST /api/rag does.' + STREAM_NOTE,
      body: ChatBody,
      ...answers,
    },
    async ({ body, res }) => run(deps.answers, { messages: body.messages, ...(body.repo !== undefined ? { repo: body.repo } : {}) }, !!body.stream, res),
  );
}

async function run(answers: AnswerService, request: AnswerRequest, stream: boolean, res: Response): Promise<unknown> {
  const controller = new AbortController();
  // The response closing before it was finished means the client went away: cancel the model call.
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  if (!stream) {
    try {
      return await answers.answer({ ...request, signal: controller.signal });
    } catch (err) {
      // Nobody is left to answer; the trace records the cancellation.
      if (err instanceof AnswerCancelledError) return undefined;
      throw err;
    }
  }
  let opened = false;
  const open = () => {
    if (opened) return;
    opened = true;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  };
  const send = (event: string, data: unknown) => {
    open();
    if (!res.writableEnded && !res.destroyed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    const result = await answers.answer({
      ...request,
      signal: controller.signal,
      onToken: (text) => send('token', { text }),
      onReset: () => send('reset', {}),
    });
    send('final', result);
    res.end();
  } catch (err) {
    if (err instanceof AnswerCancelledError) return undefined;
    // Errors before the stream opened (unknown repository) answer as JSON with their status.
    if (!opened) throw err;
    const status = (err as { status?: number }).status;
    send('error', { detail: (err as { detail?: string }).detail ?? 'the answer failed', code: status && status < 500 ? 'bad_request' : 'internal_error' });
    res.end();
  }
  return undefined;
}
