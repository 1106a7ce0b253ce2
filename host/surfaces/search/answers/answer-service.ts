import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SearchConfig } from '../search-settings.js';
import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { llmGatewayEndpoint } from '../../../platform/llm/gateway-endpoint.js';
import { LlmGatewayClient, runIdentity, type CensusSink, type ChatMessage, type ChatResult } from '../../../platform/llm/gateway-client.js';
import type { CodeSearch, SearchOutcome, SearchResult } from '../retrieval/code-search.js';
import type { Repositories } from '../repositories/repositories.js';
import type { TraceRecorder, TraceStore } from '../traces/trace-store.js';
import { LANES, type AnswerAccounting } from './answer-accounting.js';
import { AnswerCache, type CachedAnswer } from './answer-cache.js';
import { AnswerGraph, type GraphState } from './answer-graph.js';
import { markStale } from '../retrieval/freshness.js';
import { answerMessages, citationsOf, condenseMessages, contentTerms, extractiveAnswer, relevance, rewriteMessages, type Citation } from './answer-prompt.js';
import { platformErrors } from '../../../platform/errors/platform-errors.js';

export type AnswerMode = 'graph' | 'simple' | 'extractive';

export interface AnswerResult {
  answer: string;
  citations: Citation[];
  mode: AnswerMode;
  model: string | null;
  run_id: string;
  trace: string | null;
  /** What the caller should know of how this answer was made (no model, history not used, stale code cited). */
  notes?: string[];
  /** true when a citation's file changed or vanished since it was indexed (each such citation says `stale: true`). */
  stale?: boolean;
}

export interface AnswerRequest {
  question?: string;
  /** Chat: the conversation; its last user turn, made standalone, becomes the question. */
  messages?: ChatMessage[];
  repo?: string;
  topK?: number;
  /** Streaming: each piece of answer text as it is written. `reset` says earlier pieces are void (a fallback took over). */
  onToken?: (text: string) => void;
  onReset?: () => void;
  /** The client went away: model calls are cancelled and no fallback runs. */
  signal?: AbortSignal;
}

/** A chunk counts as evidence from this share of the query's content words. */
const RELEVANT_FROM = 0.5;
/** Chunks shown to the model when grading kept none (after the one rewrite). */
const UNGRADED_CHUNKS = 5;

export class AnswerCancelledError extends Error {
  constructor() {
    super('the client went away');
    this.name = 'AnswerCancelledError';
  }
}

interface RunState extends GraphState {
  outcome?: SearchOutcome;
  /** Every chunk retrieved so far (the question's and the rewrite's), best first, for citation checks. */
  retrieved: SearchResult[];
  evidence: SearchResult[];
  answer?: string;
  citations?: Citation[];
}

interface RunContext {
  runId: string;
  repo: string;
  topK: number;
  model: string;
  trace: TraceRecorder;
  request: AnswerRequest;
  streamed: boolean;
  /** The run's durable request census, when run accounting is on. */
  census?: CensusSink;
  /** Said to the caller with the answer: how it was made when that is not the full path. */
  notes: string[];
}


/**
 * Answers questions over a repository: the answer graph when a model is configured (built on
 * first use), the simple path when the graph cannot be built or a model call fails, the
 * extractive answer without a model or when the simple path fails too. Every run is traced and
 * its model and embedding calls carry one run id.
 */
export class AnswerService {
  private graph?: AnswerGraph<RunState>;
  private graphError?: string;
  private client?: { key: string; client: LlmGatewayClient };
  readonly cache: AnswerCache;

  constructor(
    private readonly deps: {
      config: SearchConfig;
      search: CodeSearch;
      repositories: Repositories;
      traces: TraceStore;
      logger: Logger;
      /** Something that changes whenever the repository's index does (its latest run and state). */
      indexGeneration: (repo: string) => Promise<string>;
      /** Run accounting: every answer run gets a record and its census (optional). */
      accounting?: AnswerAccounting;
      /** Whether the corpus's index was deleted: a current-state read, answered 404 until indexed again. */
      isDeleted?: (repo: string) => Promise<boolean>;
      /** The outbound guard of a run-time LLM_GATEWAY_URL (the platform's). */
      outbound?: OutboundGuard;
      /** Test seam: the graph's nodes come from here, so a broken build can be shown. */
      buildGraph?: (nodes: Parameters<typeof AnswerGraph.build<RunState>>[0]) => AnswerGraph<RunState>;
    },
  ) {
    const { config } = deps;
    this.cache = new AnswerCache(() => ({
      size: config.get('ANSWER_CACHE_SIZE'),
      ttlMs: config.get('ANSWER_CACHE_TTL') * 1000,
      threshold: config.get('ANSWER_CACHE_THRESHOLD'),
    }));
  }

  async answer(request: AnswerRequest): Promise<AnswerResult> {
    const started = performance.now();
    const { config } = this.deps;
    const repository = this.deps.repositories.resolve(request.repo);
    const repo = repository.name;
    if (await this.deps.isDeleted?.(repo)) throw platformErrors.error('corpus_deleted', { corpus: repo, hint: 'index it again with POST /api/index/start' });
    const runId = randomUUID();
    const model = config.get('GEN_MODEL') ?? '';
    const topK = request.topK ?? config.get('LANGGRAPH_FINAL_K');
    const lastUser = [...(request.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
    const trace = this.deps.traces.start(repo, request.question ?? lastUser);
    const ctx: RunContext = { runId, repo, topK, model, trace, request, streamed: false, notes: [] };
    trace.event('answer.request', { run_id: runId, repo, top_k: topK, model: model || null, stream: !!request.onToken, chat: !!request.messages });
    let result: Omit<AnswerResult, 'trace' | 'run_id'>;
    const accounting = this.deps.accounting;
    if (accounting) ctx.census = await accounting.open(repo, runId);
    try {
      const question = request.messages ? await this.condense(ctx, request.messages) : request.question!;
      result = await this.answerQuestion(ctx, question);
      // Every call above was awaited, so each admitted request has settled: the census closes.
      await accounting?.close(runId, 'finished');
    } catch (err) {
      await accounting?.close(runId, request.signal?.aborted ? 'interrupted' : 'failed', (err as Error)?.message).catch(() => {});
      if (err instanceof AnswerCancelledError || request.signal?.aborted) {
        trace.event('answer.cancelled', { ms: round(performance.now() - started) });
        await trace.finish().catch(() => null);
        throw new AnswerCancelledError();
      }
      throw err;
    }
    trace.event('answer.done', { mode: result.mode, model: result.model, citations: result.citations, ms: round(performance.now() - started) });
    const tracePath = await trace.finish().catch((err) => {
      this.deps.logger.warn({ err: (err as Error).message, repo }, 'answer trace not written');
      return null;
    });
    if (result.mode === 'extractive') {
      ctx.notes.push(model ? 'every model call failed: the answer is the best snippets (the trace says why)' : 'no model configured: the answer is the best snippets; set GEN_MODEL to a model served at LLM_GATEWAY_URL for a generated answer');
    }
    // Freshness is checked now, not when the answer was cached: a stat per cited file.
    const citations = (await markStale(repository.dir, result.citations.map((c) => ({ ...c })))).map(({ stamp: _stamp, ...c }) => c);
    const stale = [...new Set(citations.filter((c) => c.stale).map((c) => c.path))];
    if (stale.length) ctx.notes.push(`cites code that changed or was removed since it was indexed (${stale.join(', ')}): the cited lines may be out of date; reindex with POST /api/index/start`);
    return { ...result, citations, run_id: runId, trace: tracePath, ...(ctx.notes.length ? { notes: ctx.notes } : {}), ...(stale.length ? { stale: true } : {}) };
  }

  private async answerQuestion(ctx: RunContext, question: string): Promise<Omit<AnswerResult, 'trace' | 'run_id'>> {
    const { trace } = ctx;
    const scope = `${ctx.repo}\n${await this.deps.indexGeneration(ctx.repo)}\n${ctx.model}\n${ctx.topK}`;
    const cached = await this.fromCache(ctx, scope, question);
    if (cached.hit) {
      this.emit(ctx, cached.hit.answer);
      return cached.hit;
    }
    if (!ctx.model) {
      const outcome = await this.retrieve(ctx, question);
      const result = this.extractive(ctx, outcome.results, 'no model configured (GEN_MODEL unset)');
      this.deps.logger.debug({ repo: ctx.repo }, 'extractive answer');
      this.cache.put(scope, question, result, cached.vector);
      return result;
    }
    const state: RunState = { question, query: question, rewrites: 0, weak: false, retrieved: [], evidence: [] };
    current.set(state, ctx);
    const failures: string[] = [];
    const graph = this.ensureGraph();
    if (graph) {
      try {
        await graph.run(state, (node) => trace.event('graph.step', { node }));
        const result = { answer: state.answer!, citations: state.citations!, mode: 'graph' as const, model: ctx.model };
        this.cache.put(scope, question, result, cached.vector);
        return result;
      } catch (err) {
        this.checkCancelled(ctx);
        failures.push(`graph: ${(err as Error).message}`);
        trace.event('fallback', { from: 'graph', to: 'simple', reason: (err as Error).message });
      }
    } else {
      failures.push(`graph not built: ${this.graphError}`);
      trace.event('fallback', { from: 'graph', to: 'simple', reason: `the answer graph could not be built: ${this.graphError}` });
    }
    // The simple path: one generate call over what was retrieved (retrieving now if the graph never did).
    try {
      const outcome = state.outcome ?? (await this.retrieve(ctx, question));
      const chunks = state.retrieved.length ? state.retrieved.slice(0, ctx.topK) : outcome.results;
      const generated = await this.generate(ctx, question, chunks);
      const result = { ...generated, mode: 'simple' as const, model: ctx.model };
      // A simple answer caused by a failing model is not cached: the next ask should try the graph again.
      if (!graph) this.cache.put(scope, question, result, cached.vector);
      return result;
    } catch (err) {
      this.checkCancelled(ctx);
      failures.push(`simple: ${(err as Error).message}`);
      trace.event('fallback', { from: 'simple', to: 'extractive', reason: (err as Error).message });
    }
    const outcome = state.outcome ?? (await this.retrieve(ctx, question));
    return this.extractive(ctx, state.retrieved.length ? state.retrieved : outcome.results, failures.join('; '));
  }

  /** The graph, built on first use; undefined (with the reason kept) when it cannot be built. */
  private ensureGraph(): AnswerGraph<RunState> | undefined {
    if (this.graph || this.graphError) return this.graph;
    const build = this.deps.buildGraph ?? ((nodes) => AnswerGraph.build<RunState>(nodes));
    try {
      this.graph = build({
        retrieve: async (s) => {
          const ctx = current.get(s)!;
          s.outcome = await this.retrieve(ctx, s.query);
          const known = new Set(s.retrieved.map(key));
          for (const r of s.outcome.results) if (!known.has(key(r))) s.retrieved.push(r);
        },
        grade: async (s) => {
          const ctx = current.get(s)!;
          const terms = contentTerms(s.query);
          const grades = s.outcome!.results.map((r) => ({ r, grade: relevance(terms, r) }));
          s.evidence = grades.filter((g) => g.grade >= RELEVANT_FROM).map((g) => g.r);
          s.weak = s.evidence.length === 0;
          ctx.trace.event('grading', {
            query: s.query,
            terms: [...terms],
            weak: s.weak,
            grades: grades.map((g) => ({ path: g.r.path, start_line: g.r.start_line, end_line: g.r.end_line, grade: round(g.grade), relevant: g.grade >= RELEVANT_FROM })),
          });
        },
        rewrite: async (s) => {
          const ctx = current.get(s)!;
          const result = await this.call(ctx, LANES.rewrite, rewriteMessages(s.question));
          const rewritten = result.text.trim().split('\n')[0]!.slice(0, 500);
          s.rewrites++;
          ctx.trace.event('rewrite', { from: s.query, to: rewritten });
          if (rewritten) s.query = rewritten;
        },
        generate: async (s) => {
          const ctx = current.get(s)!;
          const chunks = s.evidence.length ? s.evidence : s.retrieved.slice(0, UNGRADED_CHUNKS);
          const generated = await this.generate(ctx, s.question, chunks);
          s.answer = generated.answer;
          s.citations = generated.citations;
        },
      });
    } catch (err) {
      this.graphError = (err as Error).message;
      this.deps.logger.warn({ err: this.graphError }, 'answer graph could not be built; the simple path answers');
    }
    return this.graph;
  }

  private async retrieve(ctx: RunContext, query: string): Promise<SearchOutcome> {
    const outcome = await this.deps.search.search(query, ctx.repo, ctx.topK, { identity: runIdentity(ctx.runId, ctx.repo, LANES.retrieval, ctx.census) });
    ctx.trace.event('retrieval', {
      query,
      dense: outcome.dense,
      ...(outcome.denseError ? { dense_error: outcome.denseError } : {}),
      ms: round(outcome.ms),
      candidates: outcome.hits.slice(0, ctx.topK).map((h, i) => ({
        rank: i + 1,
        path: h.metadata?.path ?? h.id,
        start_line: h.metadata?.start_line,
        end_line: h.metadata?.end_line,
        score: h.score,
        signals: h.signals ?? {},
      })),
    });
    if (ctx.request.signal?.aborted) throw new AnswerCancelledError();
    return outcome;
  }

  private async generate(ctx: RunContext, question: string, chunks: SearchResult[]): Promise<{ answer: string; citations: Citation[] }> {
    if (ctx.streamed) ctx.request.onReset?.();
    const result = await this.call(ctx, LANES.generation, answerMessages(question, chunks), ctx.request.onToken);
    const checked = citationsOf(result.text, chunks);
    ctx.trace.event('citations', { citations: checked.citations, dropped: checked.dropped, shown: chunks.length });
    return { answer: result.text, citations: checked.citations };
  }

  /** One model call with the run identity, GEN_TIMEOUT and the caller's cancellation; traced either way. */
  private async call(ctx: RunContext, lane: string, messages: ChatMessage[], onToken?: (text: string) => void): Promise<ChatResult> {
    const { config } = this.deps;
    const started = performance.now();
    const request = {
      model: ctx.model,
      messages,
      temperature: config.get('GEN_TEMPERATURE'),
      maxTokens: config.get('GEN_MAX_TOKENS'),
      identity: runIdentity(ctx.runId, ctx.repo, lane, ctx.census),
      timeoutMs: config.get('GEN_TIMEOUT') * 1000,
      ...(ctx.request.signal ? { signal: ctx.request.signal } : {}),
    };
    try {
      const result = onToken
        ? await this.llm().chatStream(request, (t) => {
            ctx.streamed = true;
            onToken(t);
          })
        : await this.llm().chat(request);
      ctx.trace.event('model.call', { lane, model: ctx.model, stream: !!onToken, ok: true, attempts: result.attempts, ms: round(result.ms), usage: usageForTrace(result) });
      return result;
    } catch (err) {
      ctx.trace.event('model.call', { lane, model: ctx.model, stream: !!onToken, ok: false, ms: round(performance.now() - started), error: (err as Error).message });
      this.checkCancelled(ctx);
      throw err;
    }
  }

  /** Chat: the standalone question (a model call when a model is configured and there is history). */
  private async condense(ctx: RunContext, messages: ChatMessage[]): Promise<string> {
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')!.content;
    const history = messages.filter((m) => m.role !== 'system');
    if (!ctx.model || history.length <= 1) {
      if (history.length > 1) ctx.notes.push('the conversation history is not used without a model: only the last user message was searched (set GEN_MODEL to make the conversation one standalone question)');
      ctx.trace.event('chat.condense', { question: lastUser, by: 'last user message' });
      return lastUser;
    }
    try {
      const result = await this.call(ctx, LANES.condense, condenseMessages(messages));
      const question = result.text.trim().slice(0, 4000) || lastUser;
      ctx.trace.event('chat.condense', { question, by: 'model' });
      return question;
    } catch (err) {
      this.checkCancelled(ctx);
      ctx.trace.event('chat.condense', { question: lastUser, by: 'last user message', reason: (err as Error).message });
      ctx.notes.push('the conversation could not be condensed by the model: only the last user message was searched');
      return lastUser;
    }
  }

  /** Exact hit first (no gateway call); then, with EMBEDDING_MODEL, the nearest question. */
  private async fromCache(ctx: RunContext, scope: string, question: string): Promise<{ hit?: Omit<AnswerResult, 'trace' | 'run_id'>; vector?: number[] }> {
    const exact = this.cache.exact(scope, question);
    if (exact) {
      ctx.trace.event('cache.hit', { kind: 'exact', gateway_requests: 0 });
      return { hit: copy(exact) };
    }
    const embeddingModel = this.deps.config.get('EMBEDDING_MODEL');
    if (!embeddingModel || this.deps.config.get('ANSWER_CACHE_SIZE') <= 0) {
      ctx.trace.event('cache.miss', { semantic: false });
      return {};
    }
    let vector = this.cache.vectorOf(embeddingModel, question);
    const requests = vector ? 0 : 1;
    if (!vector) {
      try {
        [vector] = await this.llm().embed(embeddingModel, [question], {
          identity: runIdentity(ctx.runId, ctx.repo, LANES.cache, ctx.census),
          ...(ctx.request.signal ? { signal: ctx.request.signal } : {}),
        });
        this.cache.rememberVector(embeddingModel, question, vector!);
      } catch (err) {
        this.checkCancelled(ctx);
        ctx.trace.event('cache.miss', { semantic: false, reason: (err as Error).message });
        return {};
      }
    }
    const near = this.cache.nearest(scope, vector!);
    if (near) {
      ctx.trace.event('cache.hit', { kind: 'semantic', similarity: round(near.similarity, 4), cached_question: near.question, gateway_requests: requests });
      return { hit: copy(near.value), vector };
    }
    ctx.trace.event('cache.miss', { semantic: true });
    return { vector: vector! };
  }

  private extractive(ctx: RunContext, chunks: SearchResult[], reason: string): Omit<AnswerResult, 'trace' | 'run_id'> {
    const { answer, citations } = extractiveAnswer(chunks);
    ctx.trace.event('extractive', { reason, citations });
    if (ctx.streamed) ctx.request.onReset?.();
    this.emit(ctx, answer);
    return { answer, citations, mode: 'extractive', model: null };
  }

  private emit(ctx: RunContext, text: string): void {
    if (ctx.request.onToken && text) ctx.request.onToken(text);
  }

  private checkCancelled(ctx: RunContext): void {
    if (ctx.request.signal?.aborted) throw new AnswerCancelledError();
  }

  private llm(): LlmGatewayClient {
    const endpoint = llmGatewayEndpoint(this.deps.config);
    const key = JSON.stringify(endpoint);
    if (this.client?.key !== key) {
      this.client = { key, client: new LlmGatewayClient({ ...endpoint, ...(this.deps.outbound ? { guard: this.deps.outbound } : {}), timeoutMs: 10 * 60_000, attempts: 2 }) };
    }
    return this.client.client;
  }
}

/** The run context of a graph state (graph nodes are built once, states are per run). */
const current = new WeakMap<RunState, RunContext>();

// A field named like a credential (`token`, `api_key`) is masked in a trace (secret-detector.ts), so usage goes in as plain counts.
function usageForTrace(result: ChatResult): { prompt: number; completion: number; total: number } | null {
  const u = result.usage;
  return u ? { prompt: u.prompt_tokens, completion: u.completion_tokens, total: u.total_tokens } : null;
}

function key(r: SearchResult): string {
  return `${r.path}:${r.start_line}:${r.end_line}`;
}

function copy(v: CachedAnswer): Omit<AnswerResult, 'trace' | 'run_id'> {
  return { answer: v.answer, citations: v.citations.map((c) => ({ ...c })), mode: v.mode, model: v.model };
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
