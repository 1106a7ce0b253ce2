import type { AttemptOutcome, CensusSink } from './gateway-client.js';

/** Census messages between the indexer child and its supervisor (over the worker thread). */
export type CensusChildMessage =
  | { type: 'admit'; seq: number; lane: string; model: string }
  | { type: 'settle'; requestId: string; outcome: AttemptOutcome }
  | { type: 'census_closed' };

export type CensusParentMessage = { type: 'admitted'; seq: number; requestId: string } | { type: 'admit_failed'; seq: number; reason: string };

/**
 * The child's census: admit asks the supervisor to write the row and waits for its answer, so a
 * request leaves only once its row is durable. A child killed mid-run leaves admitted rows
 * behind: the lane reads interrupted, never complete.
 */
export class IpcCensus implements CensusSink {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (id: string) => void; reject: (err: Error) => void }>();

  constructor(private readonly send: (m: CensusChildMessage) => void) {}

  /** Feed the supervisor's answers here. */
  receive(message: CensusParentMessage): void {
    const waiter = this.waiting.get(message.seq);
    if (!waiter) return;
    this.waiting.delete(message.seq);
    if (message.type === 'admitted') waiter.resolve(message.requestId);
    else waiter.reject(new Error(message.reason));
  }

  admit(lane: string, model: string): Promise<string> {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.send({ type: 'admit', seq, lane, model });
    });
  }

  async settle(requestId: string, outcome: AttemptOutcome): Promise<void> {
    this.send({ type: 'settle', requestId, outcome });
  }

  /** Every admitted request settled: the owner closes its census (the supervisor records it). */
  close(): void {
    this.send({ type: 'census_closed' });
  }
}
