import { createHash, randomUUID } from 'node:crypto';
import { NotAcceptedError, UncertainOutcomeError, type FaxReference, type PluginLogger, type PluginStore } from 'switchboard/sdk';
import type { StatusNotifier } from './status-notifier.js';
import { SIMULATED_BUSY, SIMULATED_FAILURE, type Scenario } from './scenarios.js';
import { FINAL_WORDS, type SimWord } from './status-words.js';

/** A fax as the simulated provider keeps it: its word follows from when it was accepted. */
export interface SimFax {
  sid: string;
  jobId: string;
  to: string;
  scenario: Scenario;
  /** Pages of the document; reported once delivered. */
  pages: number;
  attempt: number;
  /** Epoch ms of acceptance, and the delay then in force: sending at half of it, the outcome at it. */
  acceptedAt: number;
  delayMs: number;
  canceledAt?: number;
}

/** Every attempt the simulator accepted for one job, oldest first: one object per job in the store. */
interface JobFaxes {
  faxes: SimFax[];
}

/** Where and how a simulated fax stands at `now`. */
export function wordOf(fax: SimFax, now = Date.now()): { word: SimWord; error?: string } {
  const outcomeAt = fax.acceptedAt + fax.delayMs;
  if (fax.canceledAt !== undefined && fax.canceledAt < outcomeAt) return { word: 'canceled' };
  if (now >= outcomeAt) return outcomeOf(fax.scenario, fax.attempt);
  return { word: now >= fax.acceptedAt + Math.floor(fax.delayMs / 2) ? 'sending' : 'queued' };
}

/** The store key of a job's faxes: the job id when it is a valid key segment, else its hash. */
export function jobFaxesKey(jobId: string): string {
  return `faxes/${/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(jobId) ? jobId : createHash('sha256').update(jobId).digest('hex')}.json`;
}

/**
 * The simulated provider's side: the faxes it accepted, kept in the plugin's store (`ctx.storage`,
 * the gateway's artifact storage), so a lookup from any instance of a cluster finds a fax another
 * accepted, after a restart too. A fax's timeline is computed from its acceptance time; the
 * accepting generation also tells each step by a status callback unless the scenario lost the
 * submit's answer (another instance's lookups find the outcome all the same).
 */
export class SimulatedFaxes {
  /** Sids this generation accepted and whose outcome is not yet due: the health's in_flight. */
  private readonly open = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private warnedUnreachable = false;

  constructor(private readonly deps: { delayMs: number; store: PluginStore; callbacks: StatusNotifier; logger: PluginLogger }) {}

  /**
   * Records a new attempt of the job: once its write lands the provider has the fax. A store that
   * cannot be read accepted nothing; a write that failed may have landed, so its outcome is unknown.
   */
  async accept(request: { jobId: string; to: string; pages: number; callbackUrl?: string | undefined }, scenario: Scenario): Promise<SimFax> {
    const job = await this.read(request.jobId).catch((err: unknown) => {
      throw new NotAcceptedError(`simulated provider: its store is not readable (${(err as Error).message})`, undefined, { cause: err });
    });
    const { delayMs } = this.deps;
    const fax: SimFax = { sid: `sim-${randomUUID()}`, jobId: request.jobId, to: request.to, scenario, pages: request.pages, attempt: job.faxes.length + 1, acceptedAt: Date.now(), delayMs };
    job.faxes.push(fax);
    await this.write(request.jobId, job).catch((err: unknown) => {
      throw new UncertainOutcomeError(`simulated provider: storing the fax failed (${(err as Error).message}); it may have been stored`, { cause: err });
    });
    this.open.set(fax.sid, fax.acceptedAt + delayMs);
    // With the answer lost, no callback either: the host's lookup is what finds the fax.
    const callbackUrl = scenario === 'answer-lost' ? undefined : this.callbackTarget(request.callbackUrl, request.jobId);
    this.later(Math.floor(delayMs / 2), () => this.tell(fax, callbackUrl, 'sending'));
    this.later(delayMs, () => {
      this.open.delete(fax.sid);
      return this.tell(fax, callbackUrl, 'outcome');
    });
    return fax;
  }

  /** The fax a reference names: by sid, else the latest attempt of the job. */
  async find(ref: Pick<FaxReference, 'jobId' | 'providerSid'>): Promise<SimFax | undefined> {
    const { faxes } = await this.read(ref.jobId);
    return ref.providerSid ? faxes.find((f) => f.sid === ref.providerSid) : faxes.at(-1);
  }

  /** Cancels a fax whose outcome is not yet due (a final fax stays as it is). */
  async cancel(fax: SimFax): Promise<void> {
    const job = await this.read(fax.jobId);
    const stored = job.faxes.find((f) => f.sid === fax.sid);
    if (!stored || FINAL_WORDS.has(wordOf(stored).word)) return;
    stored.canceledAt = Date.now();
    await this.write(fax.jobId, job);
  }

  get inFlight(): number {
    const now = Date.now();
    return [...this.open.values()].filter((due) => due > now).length;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async read(jobId: string): Promise<JobFaxes> {
    const bytes = await this.deps.store.get(jobFaxesKey(jobId));
    return bytes ? (JSON.parse(bytes.toString('utf8')) as JobFaxes) : { faxes: [] };
  }

  private write(jobId: string, job: JobFaxes): Promise<void> {
    return this.deps.store.put(jobFaxesKey(jobId), JSON.stringify(job));
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

  private later(ms: number, step: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      step().catch((err: unknown) => this.deps.logger.warn('simulated status step failed; lookups still find the outcome', { err: (err as Error).message }));
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Posts a step of the fax's timeline (sending, or its outcome), unless it was cancelled by any instance meanwhile. */
  private async tell(fax: SimFax, callbackUrl: string | undefined, step: 'sending' | 'outcome'): Promise<void> {
    if (!callbackUrl) return;
    const stored = (await this.find({ jobId: fax.jobId, providerSid: fax.sid })) ?? fax;
    const outcome = wordOf(stored, stored.acceptedAt + stored.delayMs);
    // A cancelled fax is told by nobody: the host asked for the cancel and knows.
    if (outcome.word === 'canceled') return;
    const { word, error } = step === 'sending' ? { word: 'sending' as const, error: undefined } : outcome;
    const body = { sid: fax.sid, status: word, ...(word === 'delivered' ? { pages: fax.pages } : {}), ...(error ? { error } : {}) };
    await this.deps.callbacks.post(callbackUrl, body, fax.jobId);
  }
}

function outcomeOf(scenario: Scenario, attempt: number): { word: SimWord; error?: string } {
  if (scenario === 'failed') return { word: 'failed', error: SIMULATED_FAILURE };
  if (scenario === 'busy-then-delivered' && attempt === 1) return { word: 'busy', error: SIMULATED_BUSY };
  return { word: 'delivered' };
}
