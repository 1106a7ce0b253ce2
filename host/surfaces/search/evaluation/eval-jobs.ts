import type { Logger } from 'pino';
import type { TraceStore } from '../traces/trace-store.js';
import type { EvalCanaries } from './eval-canaries.js';
import type { EvalJob, EvalJobStore } from './eval-job-store.js';
import { runEvaluation, type EvalReport, type EvalSearch } from './eval-runner.js';
import type { GoldenQuestion } from './golden-set.js';
import { searchErrors } from '../search-errors.js';
import { platformErrors } from '../../../platform/errors/platform-errors.js';

/** Row writes of a run's progress (also its heartbeat). */
const PROGRESS_MS = 1000;

export interface EvalJobsDeps {
  store: EvalJobStore;
  search: EvalSearch;
  /** Readies a repository before its questions run (keywords built). */
  prepare?: (repo: string) => Promise<void>;
  traces: TraceStore;
  canaries?: EvalCanaries;
  logger: Logger;
  /** EVAL_MAX_RUNNING, read at each start. */
  maxRunning: () => number;
}

export interface EvalJobInput {
  golden: readonly GoldenQuestion[];
  defaultRepo: string;
  only: string | undefined;
  /** The repositories the selected questions ask about (readied first). */
  repos: string[];
  questions: number;
  topK?: number;
  name?: string;
  saveAsBaseline: boolean;
  label: string;
}

/**
 * Evaluation runs in the background: a durable row with progress, the questions asked one per
 * event-loop turn, the report saved on the row. A caller that wants the report at once awaits
 * `report` (it rejects with the run's own error).
 */
export class EvalJobs {
  private readonly active = new Map<string, { abort: AbortController; report: Promise<EvalReport> }>();
  private stopping = false;

  constructor(private readonly deps: EvalJobsDeps) {}

  async start(input: EvalJobInput): Promise<{ job: EvalJob; report: Promise<EvalReport> }> {
    if (this.stopping) throw platformErrors.error('shutting_down');
    const limit = this.deps.maxRunning();
    if (this.active.size >= limit) throw searchErrors.error('evaluation_runs_busy', { limit });
    const job = await this.deps.store.create(input.questions, input.name, input.saveAsBaseline);
    const abort = new AbortController();
    const report = this.run(job, input, abort.signal);
    // The report promise is also handed to a waiting caller; a background run has none.
    report.catch(() => {});
    this.active.set(job.id, { abort, report });
    void report.finally(() => this.active.delete(job.id)).catch(() => {});
    return { job, report };
  }

  /** Stops every run of this process; their rows say interrupted. */
  async stop(): Promise<void> {
    this.stopping = true;
    const running = [...this.active.values()];
    for (const r of running) r.abort.abort(new Error('the gateway stopped during the run'));
    await Promise.allSettled(running.map((r) => r.report));
  }

  private async run(job: EvalJob, input: EvalJobInput, signal: AbortSignal): Promise<EvalReport> {
    const { store, logger } = this.deps;
    let done = 0;
    let writes: Promise<void> = Promise.resolve();
    const write = (fn: () => Promise<void>) => {
      writes = writes.then(fn).catch((err: unknown) => logger.error({ err: (err as Error).message, run: job.id }, 'evaluation run row update failed'));
      return writes;
    };
    const heartbeat = setInterval(() => void write(() => store.progress(job.id, done)), PROGRESS_MS);
    heartbeat.unref();
    try {
      for (const repo of input.repos) {
        await this.deps.prepare?.(repo);
        signal.throwIfAborted();
      }
      const report = await runEvaluation({
        golden: input.golden,
        search: this.deps.search,
        defaultRepo: input.defaultRepo,
        ...(input.only ? { repo: input.only } : {}),
        ...(input.topK ? { topK: input.topK } : {}),
        traces: this.deps.traces,
        label: input.label,
        signal,
        onProgress: (n) => (done = n),
      });
      if (input.name && this.deps.canaries) await this.deps.canaries.record(input.name, report.summary, input.saveAsBaseline);
      clearInterval(heartbeat);
      await write(() => store.finish(job.id, { report }));
      logger.info({ run: job.id, questions: report.questions.length }, 'evaluation run finished');
      return report;
    } catch (err) {
      clearInterval(heartbeat);
      const message = signal.aborted ? String((signal.reason as Error)?.message ?? 'stopped') : (err as Error)?.message ?? String(err);
      await write(() => store.finish(job.id, { state: signal.aborted ? 'interrupted' : 'failed', error: message }));
      logger.warn({ run: job.id, err: message }, 'evaluation run ended without a report');
      throw err;
    }
  }
}
