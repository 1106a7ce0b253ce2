import type { LlmGatewayEndpoint } from '../../../../platform/llm/gateway-endpoint.js';
import type { CensusChildMessage } from '../../../../platform/llm/ipc-census.js';
import type { RunCounts } from '../index-run-store.js';
import type { IsolationLimits } from '../../../../../core/kernel/kernel.js';

/** What the supervisor sends the indexer child over IPC (not the environment: it may hold a key). */
export interface IndexJob {
  runId: string;
  repo: string;
  repoDir: string;
  /** The git revision (branch or tag name) this run indexes, checked out in repoDir; absent for a plain directory. */
  rev?: string;
  enrich: boolean;
  maxFileBytes: number;
  chunk: { size: number; overlap: number };
  /** The retrieval backend, loaded in the child from its manifest. */
  backend: {
    pluginId: string;
    manifestPath: string;
    configStorePath: string;
    dataDir: string;
    packageRoot: string;
    /** Start and stop deadlines (PLUGIN_START_TIMEOUT_MS, PLUGIN_STOP_TIMEOUT_MS); the kernel's defaults when unset. */
    timeouts?: { startMs?: number; stopMs?: number };
    /** PLUGIN_PATHS_ALLOW: where the backend's path settings may point besides DATA_DIR. */
    pathsAllow?: string[];
    /** Where the kernel runs the backend when isolated, with its limits: third-party code runs so in the child too. */
    isolation?: { mode: 'process' | 'worker'; limits: IsolationLimits };
  };
  /** OUTBOUND_ALLOW_HOSTS, for the child's own outbound guard. */
  outboundAllowHosts?: string[];
  /** Set when EMBEDDING_MODEL is: chunk vectors come from the LLM gateway. */
  embedding?: LlmGatewayEndpoint & { model: string; batchSize: number; dimensions?: number };
  /** Set when enrich is asked and GEN_MODEL is set: one semantic_kg chat call per chunk. */
  generation?: { model: string; timeoutMs: number };
  /** Admit every dispatch through the supervisor's census (run accounting is on). */
  census?: boolean;
  /** embedding.embedding_retry_max: the whole attempt budget of one embedding request. */
  embeddingAttempts?: number;
  /** Walk node_modules too (the benchmark indexes a dependency tree). */
  includeDependencies?: boolean;
}

export type IndexerMessage =
  | CensusChildMessage
  | { type: 'progress'; kind?: 'full' | 'incremental' | 'unchanged'; counts: RunCounts }
  | { type: 'done'; counts: RunCounts }
  | { type: 'failed'; reason: string; counts?: RunCounts };

/**
 * The backend collection and stamp cache of a job: the repository's own for its working tree or
 * default branch, `<repo>--rev--<rev>` for another git revision, so it never overwrites them.
 */
export function jobCorpus(job: Pick<IndexJob, 'repo' | 'rev'>): string {
  return job.rev ? `${job.repo}--rev--${job.rev.replace(/[^A-Za-z0-9._-]/g, '_')}` : job.repo;
}
