import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { llmGatewayEndpoint } from '../../../platform/llm/gateway-endpoint.js';
import type { Logger } from 'pino';
import { PluginNotAvailableError, type Kernel } from '../../../../core/kernel/kernel.js';
import { DomainError } from '../../../platform/errors/domain-error.js';
import type { RetrievalHit, RetrievalSearchOptions } from '../../../../core/sdk/index.js';
import type { SearchConfig } from '../search-settings.js';
import { randomUUID } from 'node:crypto';
import { LlmGatewayClient, runIdentity, type RunIdentity } from '../../../platform/llm/gateway-client.js';
import { revisionSource, type Repositories } from '../repositories/repositories.js';
import { assertCanIndex, retrievalBackendId } from './retrieval-backend.js';
import { markStale, stampOf, type FileStamp } from './freshness.js';
import { searchErrors } from '../search-errors.js';

export interface SearchResult {
  score: number;
  path: string;
  start_line: number;
  end_line: number;
  snippet: string;
  /** The LLM's summary and keywords of the chunk (ENRICH_CODE_CHUNKS), when the backend stores them. */
  enrichment?: string;
  /** The index run that wrote the chunk, and when (absent for chunks indexed before runs recorded it). */
  run_id?: string;
  indexed_at?: string;
  /** The file changed (size or mtime) or vanished since it was indexed; absent when the chunk has no stamp. */
  stale?: boolean;
  /** The file's stamp at indexing: internal, never in an API body. */
  stamp?: FileStamp;
}

/** A result as the API shows it (the stamp stays inside). */
export function publicResult(r: SearchResult): Omit<SearchResult, 'stamp'> {
  const { stamp: _stamp, ...rest } = r;
  return rest;
}

export interface SearchOptions {
  /** Discriminative keywords and their multiplier (KEYWORDS_BOOST), applied by the backend's re-scoring. */
  boostTerms?: { terms: string[]; factor: number };
  /** Run identity of the query embedding (answers pass their run id, lane retrieval_embeddings). */
  identity?: RunIdentity;
  /** Only chunks of these languages (the query language's `lang:`). */
  languages?: string[];
  /** A git revision (the query language's `rev:`): its own collection ranks, not the default branch's. */
  rev?: string;
}

/** Where the discriminative keywords of a repository come from (host/surfaces/search/keywords/keyword-store.ts). */
export interface KeywordSource {
  termsForRanking(repo: string): Promise<Set<string>>;
  settings(): { boost: number };
}

export interface SearchOutcome {
  query: string;
  repo: string;
  top_k: number;
  results: SearchResult[];
  /** The backend's hits with their per-signal scores, for traces. */
  hits: RetrievalHit[];
  /** Whether a query vector was fused (EMBEDDING_MODEL set and the gateway answered). */
  dense: boolean;
  /** Why dense retrieval was skipped for this query, when it was wanted. */
  denseError?: string;
  ms: number;
}

/** What a search answers when the retrieval backend cannot: not active, no write sessions, or failing. */
export const RETRIEVAL_ERRORS = ['retrieval_backend_unavailable', 'retrieval_backend_cannot_index', 'retrieval_backend_failed'];

/** Longest snippet returned per result, in characters. */
const SNIPPET_CHARS = 1200;

/**
 * Code search: resolves the repository, embeds the query when a model is configured, asks the
 * retrieval backend with the fusion settings and maps hits to the API's results.
 */
export class CodeSearch {
  private client?: { key: string; client: LlmGatewayClient };

  constructor(private readonly deps: { kernel: Kernel; config: SearchConfig; repositories: Repositories; logger: Logger; keywords?: KeywordSource; outbound?: OutboundGuard }) {}

  /** FINAL_K: the results a search returns when top_k is absent. */
  defaultTopK(): number {
    return this.deps.config.get('FINAL_K');
  }

  async search(q: string, repoName: string | undefined, topK: number | undefined, options: SearchOptions = {}): Promise<SearchOutcome> {
    const started = performance.now();
    const { config, kernel } = this.deps;
    const repo = this.deps.repositories.resolve(repoName);
    const source = revisionSource(repo, options.rev);
    const k = topK ?? config.get('FINAL_K');
    const backend = retrievalBackendId(config);
    const searchOptions: RetrievalSearchOptions = {
      fusion: {
        kDiv: config.get('RRF_K_DIV'),
        sparseWeight: config.get('BM25_WEIGHT'),
        denseWeight: config.get('VECTOR_WEIGHT'),
        topKSparse: config.get('TOPK_SPARSE'),
        topKDense: config.get('TOPK_DENSE'),
      },
    };
    if (options.languages?.length) searchOptions.filters = { languages: options.languages };
    const boostTerms = options.boostTerms ?? (await this.keywordBoost(repo.name));
    if (boostTerms) searchOptions.boostTerms = boostTerms;
    let denseError: string | undefined;
    const model = config.get('EMBEDDING_MODEL');
    if (model) {
      try {
        const [vector] = await this.llm().embed(model, [q], { identity: options.identity ?? runIdentity(`search-${randomUUID()}`, repo.name, 'retrieval_embeddings'), attempts: config.get('embedding.embedding_retry_max') });
        searchOptions.queryVector = vector!;
      } catch (err) {
        // Dense retrieval is an addition: BM25 still answers when the gateway does not.
        denseError = (err as Error).message;
        this.deps.logger.warn({ err: denseError, repo: repo.name }, 'query embedding failed; BM25 alone answers');
      }
    }
    let hits: RetrievalHit[];
    try {
      hits = await kernel.withProvider('retrieval', backend, (p) => {
        // Without write sessions nothing was ever indexed into it: say so instead of answering [].
        assertCanIndex(backend, p);
        return p.search(source.corpus, q, k, searchOptions);
      });
    } catch (err) {
      if (err instanceof PluginNotAvailableError) throw searchErrors.error('retrieval_backend_unavailable', { backend, reason: err.message });
      if (err instanceof DomainError) throw err;
      // A backend failure (a locked or damaged index file, say) is the backend's state, not a bug
      // of the request: 503 with the reason, never a 500.
      this.deps.logger.error({ err: (err as Error).message, repo: repo.name, backend }, 'retrieval backend search failed');
      throw searchErrors.error('retrieval_backend_failed', { backend, reason: (err as Error).message });
    }
    // A stat per result file: a hit whose file changed since the run that indexed it says so.
    const results = await markStale(source.dir, hits.slice(0, k).map(toResult));
    return {
      query: q,
      repo: repo.name,
      top_k: k,
      results,
      hits,
      dense: !!searchOptions.queryVector,
      ...(denseError ? { denseError } : {}),
      ms: performance.now() - started,
    };
  }

  // The repository's discriminative keywords, when built, multiply a hit holding one (KEYWORDS_BOOST).
  private async keywordBoost(repo: string): Promise<SearchOptions['boostTerms']> {
    const keywords = this.deps.keywords;
    if (!keywords) return undefined;
    const factor = keywords.settings().boost;
    const terms = factor === 1 ? [] : [...(await keywords.termsForRanking(repo))];
    return terms.length ? { terms, factor } : undefined;
  }

  private llm(): LlmGatewayClient {
    const endpoint = llmGatewayEndpoint(this.deps.config);
    const key = JSON.stringify(endpoint);
    if (this.client?.key !== key) this.client = { key, client: new LlmGatewayClient({ ...endpoint, ...(this.deps.outbound ? { guard: this.deps.outbound } : {}), timeoutMs: 10_000, attempts: 2 }) };
    return this.client.client;
  }
}

function toResult(h: RetrievalHit): SearchResult {
  const m = h.metadata ?? {};
  const start = Number.isInteger(m.start_line) ? (m.start_line as number) : 1;
  const stamp = stampOf(m);
  return {
    score: h.score,
    path: typeof m.path === 'string' ? m.path : h.id,
    start_line: start,
    end_line: Number.isInteger(m.end_line) ? (m.end_line as number) : start,
    snippet: h.text.length > SNIPPET_CHARS ? `${h.text.slice(0, SNIPPET_CHARS)}…` : h.text,
    ...(h.enrichment ? { enrichment: h.enrichment } : {}),
    ...(typeof m.run_id === 'string' ? { run_id: m.run_id } : {}),
    ...(typeof m.indexed_at === 'string' ? { indexed_at: m.indexed_at } : {}),
    ...(stamp ? { stamp } : {}),
  };
}
