import { FAX_STATUS_EVENT, type FaxLineFailure, type FaxProviderStatus, type FaxStatusUpdate } from '../contracts/fax.js';
import type { PluginContext, PluginLogger } from '../plugin.js';

type FinalStatus = 'SUCCESS' | 'FAILED';

interface Entry {
  jobId: string;
  providerSid?: string;
  /** `sent`: the request is on the wire, not yet accepted; events may already end it. */
  status: 'sent' | 'in_progress' | FinalStatus;
  pages?: number;
  error?: string;
  raw?: string;
  lineFailure?: FaxLineFailure;
  timer?: NodeJS.Timeout;
}

/** Finished entries kept for status() lookups; the oldest are forgotten first. */
const KEEP_FINISHED = 5000;

/**
 * This generation's faxes awaiting a result over a PBX connection (AMI, ESL): each ends SUCCESS or FAILED exactly once
 * (by event, connection loss or timeout) and the end is emitted to the host.
 */
export class FaxResultTable {
  private readonly entries = new Map<string, Entry>();
  private readonly bySid = new Map<string, string>();

  constructor(
    private readonly emit: (update: FaxStatusUpdate) => void,
    private readonly resultTimeoutMs: number,
    private readonly logger: PluginLogger,
  ) {}

  /** A table whose results go to the host as `fax.status` events of the plugin's context. */
  static emitting(ctx: Pick<PluginContext, 'events' | 'logger'>, resultTimeoutMs: number): FaxResultTable {
    return new FaxResultTable((update) => ctx.events.emit(FAX_STATUS_EVENT, update), resultTimeoutMs, ctx.logger);
  }

  /** A request about to be written: events naming it can match before its reply is read. */
  expect(jobId: string, pages: number, providerSid?: string): void {
    this.drop(jobId);
    this.entries.set(jobId, { jobId, status: 'sent', pages });
    if (providerSid) this.link(jobId, providerSid);
  }

  /** Records the provider's id of a fax (known with the reply, for some PBXs). */
  link(jobId: string, providerSid: string): void {
    const entry = this.entries.get(jobId);
    if (entry) entry.providerSid = providerSid;
    this.bySid.set(providerSid, jobId);
  }

  /** True while the fax is sent or in progress: no result yet. */
  isOpen(jobId: string): boolean {
    const status = this.entries.get(jobId)?.status;
    return status === 'sent' || status === 'in_progress';
  }

  /**
   * The PBX accepted the request: in progress until a result, the connection's loss or the
   * timeout. Returns the fax's state, already final when an event beat the reply.
   */
  accept(jobId: string): FaxProviderStatus {
    const entry = this.entries.get(jobId);
    if (entry?.status === 'sent') {
      entry.status = 'in_progress';
      entry.timer = setTimeout(() => this.finish(jobId, { status: 'FAILED', error: 'timeout waiting for fax result', raw: 'timeout' }), this.resultTimeoutMs);
    }
    return this.status(jobId) ?? { status: 'in_progress' };
  }

  /** The request was refused or its fate is unknown: this generation has no record of it. */
  forget(jobId: string): void {
    if (this.entries.get(jobId)?.status === 'sent') this.drop(jobId);
  }

  /** Removes an entry and its provider-id link, so neither map grows with refused sends. */
  private drop(jobId: string): void {
    const sid = this.entries.get(jobId)?.providerSid;
    if (sid && this.bySid.get(sid) === jobId) this.bySid.delete(sid);
    this.entries.delete(jobId);
  }

  jobIdOf(providerSid: string): string | undefined {
    return this.bySid.get(providerSid);
  }

  /**
   * Ends a fax. A result for a job this generation did not send (sent by the previous
   * generation, say) is passed on too; a second result for a finished job is dropped.
   */
  finish(jobId: string, outcome: { status: FinalStatus; pages?: number; error?: string; raw?: string; lineFailure?: FaxLineFailure }): void {
    const existing = this.entries.get(jobId);
    if (existing && existing.status !== 'in_progress' && existing.status !== 'sent') return;
    clearTimeout(existing?.timer);
    const entry: Entry = { ...existing, jobId, ...defined(outcome), timer: undefined };
    if (entry.status === 'SUCCESS') {
      delete entry.error;
      delete entry.lineFailure;
    }
    this.entries.delete(jobId);
    this.entries.set(jobId, entry);
    this.prune();
    this.logger.info('fax finished', { jobId, status: entry.status, pages: entry.pages, error: entry.error });
    this.emit(defined({ jobId, providerSid: entry.providerSid, status: entry.status, pages: entry.pages, error: entry.error, raw: entry.raw, lineFailure: entry.lineFailure }) as FaxStatusUpdate);
  }

  /** Fails every fax still waiting, with the same reason. */
  failPending(error: string): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.status === 'in_progress') this.finish(entry.jobId, { status: 'FAILED', error, raw: 'connection lost' });
    }
  }

  pendingCount(): number {
    let n = 0;
    for (const entry of this.entries.values()) if (entry.status === 'in_progress') n++;
    return n;
  }

  status(jobId: string, providerSid?: string): FaxProviderStatus | null {
    const entry = this.entries.get(jobId) ?? (providerSid ? this.entries.get(this.bySid.get(providerSid) ?? '') : undefined);
    if (!entry || entry.status === 'sent') return null;
    return defined({ providerSid: entry.providerSid, status: entry.status, pages: entry.pages, error: entry.error, raw: entry.raw, lineFailure: entry.lineFailure }) as FaxProviderStatus;
  }

  /** Stops the timers; results still to come are left to the next generation. */
  dispose(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
  }

  private prune(): void {
    let finished = 0;
    const done = (entry: Entry) => entry.status === 'SUCCESS' || entry.status === 'FAILED';
    for (const entry of this.entries.values()) if (done(entry)) finished++;
    for (const [jobId, entry] of this.entries) {
      if (finished <= KEEP_FINISHED) break;
      if (!done(entry)) continue;
      this.entries.delete(jobId);
      if (entry.providerSid) this.bySid.delete(entry.providerSid);
      finished--;
    }
  }
}

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
