import type { FaxLineFailure, FaxStatus } from 'switchboard/sdk';
import { statusWords } from 'switchboard/sdk/fax';

/** The simulator's status words, as its callbacks and lookups say them. */
export type SimWord = 'queued' | 'sending' | 'delivered' | 'busy' | 'failed' | 'canceled';

export const mapSimStatus: (raw: string | undefined) => FaxStatus = statusWords({
  queued: 'queued',
  sending: 'in_progress',
  delivered: 'SUCCESS',
  busy: 'FAILED',
  failed: 'FAILED',
  canceled: 'FAILED',
});

export const FINAL_WORDS: ReadonlySet<SimWord> = new Set(['delivered', 'busy', 'failed', 'canceled']);

/** A busy line is a line failure: the host redials it when the job's retry policy allows. */
export function lineFailureOf(word: string | undefined): FaxLineFailure | undefined {
  return word === 'busy' ? 'busy' : undefined;
}
