import pLimit, { type LimitFunction } from 'p-limit';
import { Counter, Histogram, type Registry } from 'prom-client';
import { withTimeout } from '../../../core/kernel/generation.js';
import type { Kernel } from '../../../core/kernel/kernel.js';
import type { JudgeAnswer, JudgeProvider, JudgeReadiness, JudgeRequest } from '../../../core/sdk/contracts/judge.js';
import { SystemOneError, isSystemOneError, type SystemOneOutcome } from '../../../core/sdk/judge/index.js';
import type { ConfigRegistry } from '../config/registry.js';

/** What a route that asks the judge answers when it cannot: 502 naming the outcome (platform-http-errors.ts). */
export const JUDGE_ERRORS = ['judge_timeout', 'judge_unavailable', 'judge_rate_limited', 'judge_http_error', 'judge_invalid_response', 'judge_cancelled'] as const satisfies ReadonlyArray<`judge_${SystemOneOutcome}`>;

/** Where a judge answers from (the judge contract's `served`; unset is `network`). */
export type JudgeServed = NonNullable<JudgeProvider['served']>;

/** What the host knows of a judge plugin now: where it answers from, and its readiness while active. */
export interface JudgeStanding {
  active: boolean;
  /** Its plugin state (active, needs-config, failed, ...). */
  state: string;
  /** Said by its active generation; for an inactive plugin, what its last generation said (undefined when none was seen). */
  served: JudgeServed | undefined;
  /** Active only. */
  readiness?: JudgeReadiness;
}

/**
 * Typed judgment for the host's consumers (the synthetic-data lab, the reranker harness): the
 * backend chosen live by system_one.provider, system_one.* as the call's budget, at most
 * system_one.max_concurrency calls in flight per caller, and request metrics by outcome.
 * A backend that cannot answer raises SystemOneError; nothing falls back.
 */
export class JudgeService {
  private readonly limits = new Map<string, { concurrency: number; limit: LimitFunction }>();
  /** Recent calls per judge plugin (time, ok), for alert conditions; trimmed to the last hour. */
  private readonly recent = new Map<string, Array<{ at: number; ok: boolean }>>();
  /** Where each judge plugin said it answers from, as last seen (kept while it is not active). */
  private readonly served = new Map<string, JudgeServed>();
  private readonly requests: Counter<'provider' | 'outcome'>;
  private readonly latency: Histogram<'provider'>;

  constructor(
    private readonly deps: { kernel: Kernel; config: ConfigRegistry; metrics: Registry },
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
        return kernel.withProvider('judge', pluginId, (judge) => {
          this.learn(pluginId, judge);
          return judge.ask({
            ...request,
            model: request.model ?? config.get('system_one.model'),
            timeoutMs: Math.round(config.get('system_one.timeout_s') * 1000),
            maxRetries: config.get('system_one.max_retries'),
          });
        });
      });
      this.requests.inc({ provider, outcome: 'ok' });
      this.remember(pluginId, true);
      return answer;
    } catch (err) {
      const typed = isSystemOneError(err) ? err : new SystemOneError('unavailable', `the ${provider} judge failed: ${(err as Error)?.message ?? err}`, undefined, { cause: err });
      this.requests.inc({ provider, outcome: typed.outcome });
      this.remember(pluginId, false);
      throw typed;
    } finally {
      this.latency.observe({ provider }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }

  /** Calls to a judge plugin since `since` (epoch ms) and how many failed. */
  stats(pluginId: string, since: number): { calls: number; errors: number } {
    const calls = (this.recent.get(pluginId) ?? []).filter((c) => c.at >= since);
    return { calls: calls.length, errors: calls.filter((c) => !c.ok).length };
  }

  /** The judge plugins to watch: every active one, and every one called in the last hour. */
  watched(now = Date.now()): string[] {
    const called = [...this.recent].filter(([, calls]) => calls.some((c) => c.at >= now - 3_600_000)).map(([id]) => id);
    return [...new Set([...this.deps.kernel.providersOf('judge'), ...called])].sort();
  }

  /** What a judge plugin says of itself through the judge contract: where it answers from and, active, whether it can answer now. */
  async standing(pluginId: string): Promise<JudgeStanding> {
    const { kernel } = this.deps;
    if (!kernel.isActive('judge', pluginId)) return { active: false, state: kernel.stateOf(pluginId), served: this.served.get(pluginId) };
    // A plugin's own check, under the deadline of its health check.
    const readinessOf = (judge: JudgeProvider) => (judge.readiness ? withTimeout(judge.readiness(), this.deps.config.get('PLUGIN_HEALTH_TIMEOUT_MS'), `the readiness of ${pluginId}`) : Promise.resolve({ ready: true }));
    try {
      return await kernel.withProvider('judge', pluginId, async (judge) => ({ active: true, state: 'active', served: this.learn(pluginId, judge), readiness: await readinessOf(judge) }));
    } catch (err) {
      // Deactivated meanwhile, or its check failed: it cannot answer now.
      const active = kernel.isActive('judge', pluginId);
      return { active, state: kernel.stateOf(pluginId), served: this.served.get(pluginId), ...(active ? { readiness: { ready: false, responding: false, detail: (err as Error)?.message ?? String(err) } } : {}) };
    }
  }

  private learn(pluginId: string, judge: JudgeProvider): JudgeServed {
    const served = judge.served ?? 'network';
    this.served.set(pluginId, served);
    return served;
  }

  private remember(pluginId: string | undefined, ok: boolean): void {
    // A name no plugin claims is no judge to watch.
    if (pluginId === undefined) return;
    const now = Date.now();
    let list = this.recent.get(pluginId);
    if (!list) this.recent.set(pluginId, (list = []));
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
