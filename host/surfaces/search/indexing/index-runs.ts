import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import { outboundAllowHosts } from '../../../../core/kernel/egress.js';
import { llmGatewayEndpoint } from '../../../platform/llm/gateway-endpoint.js';
import type { SearchConfig } from '../search-settings.js';
import { type IndexRun, type IndexRunStore, type RunCounts } from './index-run-store.js';
import type { IndexJob, IndexerMessage } from './indexer/protocol.js';
import type { Repositories, Repository } from '../repositories/repositories.js';
import { assertCanIndex, retrievalBackendId } from '../retrieval/retrieval-backend.js';
import type { WorkerInput } from './indexer-worker.js';
import type { IndexRunAccounting } from './index-run-accounting.js';
import type { CensusParentMessage } from '../../../platform/llm/ipc-census.js';
import { walkRepository } from './indexer/file-walk.js';
import { searchErrors } from '../search-errors.js';
import { platformErrors } from '../../../platform/errors/platform-errors.js';

export interface IndexRunsDeps {
  store: IndexRunStore;
  repositories: Repositories;
  kernel: Kernel;
  config: SearchConfig;
  logger: Logger;
  dataDir: string;
  packageRoot: string;
  /** The plugin config store the indexer child reads the backend's settings from (SERVICE_CONFIG_PATH). */
  configStorePath: string;
  /** The environment plugins see; the child gets it too, so settings resolve as in the kernel. */
  pluginEnv: NodeJS.ProcessEnv;
  /** Run accounting: the record, its frozen estimate and the census the child writes through us. */
  accounting?: IndexRunAccounting;
}

interface Active {
  run: IndexRun;
  worker: Worker;
  heartbeat: NodeJS.Timeout;
  childPid?: number;
  done: Promise<void>;
}

/**
 * Starts indexing runs (one per repository at a time) and keeps their rows current. Each run is
 * a worker thread supervising an indexer child process; this class only moves messages to rows.
 */
export class IndexRuns {
  private readonly active = new Map<string, Active>();
  private stopping = false;

  constructor(private readonly deps: IndexRunsDeps) {}

  /** `revision`: a git revision exported to its own directory, indexed under its name (rev:). */
  async start(repoName: string | undefined, enrich: boolean, options: { includeDependencies?: boolean; revision?: { name: string; dir: string } } = {}): Promise<IndexRun> {
    if (this.stopping) throw platformErrors.error('shutting_down');
    const resolved = this.deps.repositories.resolve(repoName);
    const repo = options.revision ? { ...resolved, dir: options.revision.dir } : resolved;
    const job = { ...this.jobFor(repo, enrich, options.includeDependencies), ...(options.revision ? { rev: options.revision.name } : {}) };
    // A backend without write sessions would take the run and fail it in the child: refuse now.
    await this.deps.kernel.withProvider('retrieval', job.backend.pluginId, async (p) => assertCanIndex(job.backend.pluginId, p));
    // RunAlreadyRunningError answers 409 index_run_running through the domain mapping
    const run = await this.deps.store.create(repo.name, enrich);
    job.runId = run.id;
    if (this.deps.accounting) {
      try {
        await this.deps.accounting.store.undelete(repo.name);
        // The size estimate prices model calls only: without a model the walk is skipped.
        const sizes = job.embedding || job.generation ? await this.sizeOf(repo, job) : { chunks: 0, chars: 0 };
        await this.deps.accounting.open(run, enrich && !!job.generation, sizes);
      } catch (err) {
        // No run dispatches without its accounting record.
        await this.deps.store.finish(run.id, 'failed', `run accounting could not open: ${(err as Error).message}`);
        throw err;
      }
    }
    this.launch(run, job, job.rev ? undefined : await this.indexedCounts(job));
    return run;
  }

  /** What the pre-run estimate is based on: the files the run would read. */
  private async sizeOf(repo: Repository, job: IndexJob): Promise<{ chunks: number; chars: number }> {
    const walked = await walkRepository(repo.dir, { maxBytes: job.maxFileBytes, skipDependencies: !job.includeDependencies }).catch(() => ({ files: [] as Array<{ size: number }> }));
    let chars = 0;
    let chunks = 0;
    for (const f of walked.files) {
      chars += f.size;
      chunks += Math.max(1, Math.ceil(f.size / Math.max(1, job.chunk.size - job.chunk.overlap)));
    }
    return { chunks, chars };
  }

  /** The backend's counts of the repository, for the no-change check; undefined when it cannot say. */
  private async indexedCounts(job: IndexJob): Promise<{ sources: number; vectors: number } | undefined> {
    try {
      const stats = await this.deps.kernel.withProvider('retrieval', job.backend.pluginId, async (p) => p.stats?.(job.repo));
      return stats ? { sources: stats.sources, vectors: stats.vectors } : undefined;
    } catch {
      return undefined; // the child runs and finds out
    }
  }

  /** Pid of the indexer child of a running run (tests kill it). */
  childPid(runId: string): number | undefined {
    return [...this.active.values()].find((a) => a.run.id === runId)?.childPid;
  }

  /** Resolves when the run's worker has ended (or at once when it is not running here). */
  async settled(runId: string): Promise<void> {
    await [...this.active.values()].find((a) => a.run.id === runId)?.done;
  }

  /** Stops every run of this process; their rows say interrupted. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.active.values()].map(async (a) => {
        await this.deps.store.finish(a.run.id, 'interrupted', 'the gateway stopped during the run').catch(() => {});
        await this.deps.accounting?.store.finish(a.run.id, 'interrupted', 'the gateway stopped during the run').catch(() => {});
        a.worker.postMessage({ type: 'stop' });
        await Promise.race([a.done, new Promise((r) => setTimeout(r, 5000))]);
        await a.worker.terminate();
      }),
    );
  }

  private jobFor(repo: Repository, enrich: boolean, includeDependencies?: boolean): IndexJob {
    const { kernel, config } = this.deps;
    const pluginId = retrievalBackendId(config);
    const view = kernel.get(pluginId);
    if (!view?.manifest_path || !kernel.isActive('retrieval', pluginId)) {
      throw searchErrors.error('retrieval_backend_unavailable', { backend: pluginId, reason: `not active (state: ${kernel.stateOf(pluginId)})` });
    }
    const model = config.get('EMBEDDING_MODEL');
    return {
      runId: '',
      repo: repo.name,
      repoDir: repo.dir,
      enrich,
      maxFileBytes: config.get('INDEX_MAX_FILE_BYTES'),
      chunk: { size: config.get('CHUNK_SIZE'), overlap: Math.min(config.get('CHUNK_OVERLAP'), config.get('CHUNK_SIZE') - 1) },
      backend: { pluginId, manifestPath: view.manifest_path, configStorePath: this.deps.configStorePath, dataDir: this.deps.dataDir, packageRoot: this.deps.packageRoot, timeouts: { startMs: config.get('PLUGIN_START_TIMEOUT_MS'), stopMs: config.get('PLUGIN_STOP_TIMEOUT_MS') }, pathsAllow: config.get('PLUGIN_PATHS_ALLOW').split(path.delimiter).filter((p) => path.isAbsolute(p)), ...isolationOfBackend(view.isolation?.mode, config) },
      outboundAllowHosts: outboundAllowHosts(config.get('OUTBOUND_ALLOW_HOSTS')),
      ...(model ? { embedding: { ...llmGatewayEndpoint(config), model, batchSize: config.get('EMBEDDING_BATCH_SIZE') } } : {}),
      ...(model && enrich && config.get('GEN_MODEL') ? { generation: { model: config.get('GEN_MODEL')!, timeoutMs: config.get('GEN_TIMEOUT') * 1000 } } : {}),
      embeddingAttempts: config.get('embedding.embedding_retry_max'),
      census: !!this.deps.accounting,
      ...(includeDependencies ? { includeDependencies } : {}),
    };
  }

  private launch(run: IndexRun, job: IndexJob, indexed: { sources: number; vectors: number } | undefined): void {
    const { store, logger, packageRoot } = this.deps;
    // Only the variables the retrieval plugin declares for its settings, so the child resolves
    // them (declared env > the config store > defaults) exactly as the kernel does; the host
    // never reads a plugin's settings itself, and the child gets no other secret.
    const declared = this.deps.kernel.settingsVariablesOf(job.backend.pluginId);
    const env: Record<string, string> = {
      ...Object.fromEntries(declared.flatMap((name) => (typeof this.deps.pluginEnv[name] === 'string' ? [[name, this.deps.pluginEnv[name]!]] : []))),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      REPO: job.repo,
      REPO_ROOT: packageRoot,
      NODE_PATH: path.join(packageRoot, 'node_modules'),
    };
    if (job.enrich) env.ENRICH_CODE_CHUNKS = 'true';
    const input: WorkerInput = { job, script: path.join(packageRoot, 'dist/host/surfaces/search/indexing/indexer/main.js'), env, ...(indexed ? { indexed } : {}) };
    const worker = new Worker(new URL('./indexer-worker.js', import.meta.url), { workerData: input });
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const heartbeat = setInterval(() => void store.heartbeat(run.id).catch(() => {}), 5000);
    heartbeat.unref();
    const entry: Active = { run, worker, heartbeat, done };
    this.active.set(run.id, entry);
    let writes = Promise.resolve();
    // Row updates run in message order, so a late progress write never follows the final one.
    const queue = (fn: () => Promise<void>) => {
      writes = writes.then(fn).catch((err: unknown) => logger.error({ err: (err as Error).message, run: run.id }, 'index run row update failed'));
    };
    let counts: RunCounts | undefined;
    let ended = false;
    const end = (state: 'finished' | 'failed', error: string | null) => {
      if (ended) return;
      ended = true;
      queue(() => store.finish(run.id, state, error, counts ?? {}));
      const accounts = this.deps.accounting?.store;
      if (accounts) queue(() => accounts.finish(run.id, state, error));
      logger.info({ run: run.id, repo: run.repo, state, error, counts }, 'index run ended');
    };
    const accounts = this.deps.accounting?.store;
    worker.on('message', (m: IndexerMessage | { type: 'spawned'; pid: number } | { type: 'exited' }) => {
      if (m.type === 'spawned') entry.childPid = m.pid;
      else if (m.type === 'admit') {
        // The row is written before the child may dispatch: it waits for this answer.
        const answer = (reply: CensusParentMessage) => worker.postMessage(reply);
        if (!accounts) answer({ type: 'admit_failed', seq: m.seq, reason: 'run accounting is not configured' });
        else accounts.admit(run.id, m.lane, m.model).then((requestId) => answer({ type: 'admitted', seq: m.seq, requestId }), (err: Error) => answer({ type: 'admit_failed', seq: m.seq, reason: err.message }));
      } else if (m.type === 'settle') {
        if (accounts) queue(() => accounts.settle(m.requestId, m.outcome));
      } else if (m.type === 'census_closed') {
        if (accounts) queue(() => accounts.closeCensus(run.id));
      }
      else if (m.type === 'progress') {
        counts = m.counts;
        queue(() => store.progress(run.id, { ...m.counts, ...(m.kind ? { kind: m.kind } : {}) }));
      } else if (m.type === 'done') {
        counts = m.counts;
        end('finished', null);
      } else if (m.type === 'failed') {
        counts = m.counts ?? counts;
        end('failed', m.reason);
      }
    });
    worker.on('error', (err) => end('failed', `indexer supervisor failed: ${err.message}`));
    worker.on('exit', () => {
      end('failed', 'the indexer supervisor stopped before the run ended');
      clearInterval(heartbeat);
      this.active.delete(run.id);
      void writes.then(resolveDone);
    });
  }
}

/** The kernel's isolation of the backend, for the indexer child to run it the same way. */
function isolationOfBackend(mode: string | undefined, config: { get(name: 'PLUGIN_MEMORY_MB' | 'PLUGIN_CALL_TIMEOUT_MS' | 'PLUGIN_UNRESPONSIVE_MS' | 'PLUGIN_MAX_CONCURRENT_CALLS'): number }): { isolation?: IndexJob['backend']['isolation'] } {
  if (mode !== 'process' && mode !== 'worker') return {};
  const limits = { memoryMb: config.get('PLUGIN_MEMORY_MB'), callMs: config.get('PLUGIN_CALL_TIMEOUT_MS'), unresponsiveMs: config.get('PLUGIN_UNRESPONSIVE_MS'), maxConcurrentCalls: config.get('PLUGIN_MAX_CONCURRENT_CALLS') };
  return { isolation: { mode, limits } };
}
