import { randomUUID } from 'node:crypto';
import type { FaxReference, PluginLogger } from 'switchboard/sdk';
import type { StatusNotifier } from './status-notifier.js';
import { SIMULATED_BUSY, SIMULATED_FAILURE, type Scenario } from './scenarios.js';
import { FINAL_WORDS, type SimWord } from './status-words.js';

/** A fax as the simulated provider keeps it. */
export interface SimFax {
  sid: string;
  jobId: string;
  to: string;
  word: SimWord;
  /** Pages of the document; reported once delivered. */
  pages: number;
  error?: string;
  attempt: number;
}

/**
 * The simulated provider's side: the faxes it accepted and their timelines (sending at half the
 * delay, the outcome at the delay), each step told by a status callback unless the scenario lost
 * the submit's answer. Kept by this generation: a reload or restart forgets faxes in flight.
 */
export class SimulatedFaxes {
  private readonly bySid = new Map<string, SimFax>();
  private readonly attemptsByJob = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private warnedUnreachable = false;

  constructor(private readonly deps: { delayMs: number; callbacks: StatusNotifier; logger: PluginLogger }) {}

  accept(request: { jobId: string; to: string; pages: number; callbackUrl?: string | undefined }, scenario: Scenario): SimFax {
    const attempt = (this.attemptsByJob.get(request.jobId) ?? 0) + 1;
    this.attemptsByJob.set(request.jobId, attempt);
    const fax: SimFax = { sid: `sim-${randomUUID()}`, jobId: request.jobId, to: request.to, word: 'queued', pages: request.pages, attempt };
    this.bySid.set(fax.sid, fax);
    // With the answer lost, no callback either: the host's lookup is what finds the fax.
    const callbackUrl = scenario === 'answer-lost' ? undefined : this.callbackTarget(request.callbackUrl, request.jobId);
    const { delayMs } = this.deps;
    this.later(Math.floor(delayMs / 2), () => this.move(fax, { word: 'sending' }, callbackUrl));
    this.later(delayMs, () => this.move(fax, outcomeOf(scenario, attempt), callbackUrl));
    return fax;
  }

  /** The fax a reference names: by sid, else the latest attempt of the job. */
  find(ref: Pick<FaxReference, 'jobId' | 'providerSid'>): SimFax | undefined {
    if (ref.providerSid) return this.bySid.get(ref.providerSid);
    let latest: SimFax | undefined;
    for (const fax of this.bySid.values()) if (fax.jobId === ref.jobId && (!latest || fax.attempt > latest.attempt)) latest = fax;
    return latest;
  }

  cancel(fax: SimFax): void {
    if (!FINAL_WORDS.has(fax.word)) fax.word = 'canceled';
  }

  get inFlight(): number {
    return [...this.bySid.values()].filter((fax) => !FINAL_WORDS.has(fax.word)).length;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private callbackTarget(url: string | undefined, jobId: string): string | undefined {
    if (!url) return undefined;
    if (this.deps.callbacks.mayPostTo(url)) return url;
    if (!this.warnedUnreachable) {
      this.warnedUnreachable = true;
      this.deps.logger.warn('callback URL outside egress (set gatewayUrl or PUBLIC_API_URL to the gateway URL); results come by polling', { jobId });
    }
    return undefined;
  }

  private later(ms: number, step: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      step();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private move(fax: SimFax, next: { word: SimWord; error?: string }, callbackUrl: string | undefined): void {
    // A cancelled fax stays cancelled.
    if (FINAL_WORDS.has(fax.word)) return;
    fax.word = next.word;
    if (next.error) fax.error = next.error;
    if (!callbackUrl) return;
    const body = { sid: fax.sid, status: fax.word, ...(fax.word === 'delivered' ? { pages: fax.pages } : {}), ...(fax.error ? { error: fax.error } : {}) };
    void this.deps.callbacks.post(callbackUrl, body, fax.jobId);
  }
}

function outcomeOf(scenario: Scenario, attempt: number): { word: SimWord; error?: string } {
  if (scenario === 'failed') return { word: 'failed', error: SIMULATED_FAILURE };
  if (scenario === 'busy-then-delivered' && attempt === 1) return { word: 'busy', error: SIMULATED_BUSY };
  return { word: 'delivered' };
}
