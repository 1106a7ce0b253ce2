import pLimit, { type LimitFunction } from 'p-limit';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { JudgeAnswer, JudgeRequest } from '../../../../core/sdk/contracts/judge.js';
import { SystemOneError, isSystemOneError } from '../../../../core/sdk/judge/index.js';
import type { WorkbenchConfig } from '../workbench-settings.js';

/**
 * Typed judgment for the host's consumers (the synthetic-data lab, the reranker harness): the
 * backend chosen live by system_one.provider, system_one.* as the call's budget, at most
 * system_one.max_concurrency calls in flight per caller, and request metrics by outcome.
 * A backend that cannot answer raises SystemOneError; nothing falls back.
 */
export class JudgeService {
  private readonly limits = new Map<string, { concurrency: number; limit: LimitFunction }>();
  /** Recent calls per backend name (time, ok), for alert conditions; trimmed to the last hour. */
  private readonly recent = new Map<string, Array<{ at: number; ok: boolean }>>();
  private readonly requests: Counter<'provider' | 'outcome'>;
  private readonly latency: Histogram<'provider'>;

  constructor(
    private readonly deps: { kernel: Kernel; config: WorkbenchConfig; metrics: Registry },
  ) {
    this.requests = new Counter({
      name: 'switchboard_system_one_requests_total',
      help: 'Judgment calls by backend and outcome (ok, timeout, unavailable, rate_limited, http_error, invalid_response, cancelled).',
      labelNames: ['provider', 'outcome'],
      registers: [deps.metrics],
    });
    this.latency = new Histogram({
      name: 'switchboard_system_one_latency_seconds',
      help: 'Duration of judgment calls, retries included.',
      labelNames: ['provider'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [deps.metrics],
    });
  }

  /**
   * The backend in force now: system_one.provider names a judge plugin by id or by an alias its
   * manifest declares. `provider` is the name reports use, the manifest's first alias (the spec's
   * `hosted`, `selfhosted`) or else the id; `pluginId` is undefined when no manifest claims the name.
   */
  backend(): { provider: string; pluginId: string | undefined } {
    const configured = this.deps.config.get('system_one.provider');
    const pluginId = this.deps.kernel.pluginIdFor(configured);
    const provider = (pluginId && this.deps.kernel.manifestOf(pluginId)?.aliases?.[0]) ?? pluginId ?? configured;
    return { provider, pluginId };
  }

  /** The judge plugin a name (an id or a manifest alias such as `selfhosted`) stands for. */
  pluginIdFor(name: string): string | undefined {
    return this.deps.kernel.pluginIdFor(name);
  }

  async ask(request: Omit<JudgeRequest, 'timeoutMs' | 'maxRetries'>, caller: string): Promise<JudgeAnswer> {
    const { config, kernel } = this.deps;
    const { provider, pluginId } = this.backend();
    const started = process.hrtime.bigint();
    try {
      const answer = await this.limitFor(caller)(async () => {
        if (pluginId === undefined) throw new SystemOneError('unavailable', `no judge plugin is named "${provider}" (system_one.provider): no manifest has that id or alias`);
        if (!kernel.isActive('judge', pluginId)) {
          const view = kernel.get(pluginId);
          const why = view?.last_error ? `: ${view.last_error}` : '';
          throw new SystemOneError('unavailable', `the ${provider} judge (plugin ${pluginId}) is ${kernel.stateOf(pluginId)}${why}`);
        }
        return kernel.withProvider('judge', pluginId, (judge) =>
          judge.ask({
            ...request,
            model: request.model ?? config.get('system_one.model'),
            timeoutMs: Math.round(config.get('system_one.timeout_s') * 1000),
            maxRetries: config.get('system_one.max_retries'),
          }),
        );
      });
      this.requests.inc({ provider, outcome: 'ok' });
      this.remember(provider, true);
      return answer;
    } catch (err) {
      const typed = isSystemOneError(err) ? err : new SystemOneError('unavailable', `the ${provider} judge failed: ${(err as Error)?.message ?? err}`, undefined, { cause: err });
      this.requests.inc({ provider, outcome: typed.outcome });
      this.remember(provider, false);
      throw typed;
    } finally {
      this.latency.observe({ provider }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** Calls to a backend since `since` (epoch ms) and how many failed. */
  stats(provider: string, since: number): { calls: number; errors: number } {
    const calls = (this.recent.get(provider) ?? []).filter((c) => c.at >= since);
    return { calls: calls.length, errors: calls.filter((c) => !c.ok).length };
  }

  private remember(provider: string, ok: boolean): void {
    const now = Date.now();
    let list = this.recent.get(provider);
    if (!list) this.recent.set(provider, (list = []));
    list.push({ at: now, ok });
    while (list.length && (list[0]!.at < now - 3_600_000 || list.length > 10_000)) list.shift();
  }

  private limitFor(caller: string): LimitFunction {
    const concurrency = this.deps.config.get('system_one.max_concurrency');
    let entry = this.limits.get(caller);
    if (!entry || entry.concurrency !== concurrency) {
      entry = { concurrency, limit: pLimit(concurrency) };
      this.limits.set(caller, entry);
    }
    return entry.limit;
  }
}
