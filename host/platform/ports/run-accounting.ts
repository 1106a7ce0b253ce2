import type { AttemptOutcome, CensusSink } from '../llm/gateway-client.js';

/** How a run owned by a surface ended, as its accounting record keeps it. */
export type RunEnd = 'finished' | 'failed' | 'interrupted';

/** The durable ledger a run's model requests are admitted to and settled in. */
export interface RunLedger {
  admit(runId: string, lane: string, model: string): Promise<string>;
  settle(requestId: string, outcome: AttemptOutcome): Promise<void>;
  closeCensus(runId: string): Promise<void>;
  finish(runId: string, state: RunEnd, error?: string | null): Promise<void>;
  /** A corpus deleted through the API reads 404 on current-state routes until indexed again. */
  isDeleted(corpusId: string): Promise<boolean>;
  undelete(corpusId: string): Promise<void>;
}

/** Run accounting of answers: a record per answer run, its census, its end. */
export interface AnswerAccounting {
  open(repo: string, runId: string, lanes: string[]): Promise<CensusSink>;
  close(runId: string, state: RunEnd, error?: string): Promise<void>;
}

/**
 * What code search records into the workbench's run accounting (index runs and answers). The
 * workbench provides it; code search reaches it only through this port.
 */
export interface RunAccountingPort {
  store: RunLedger;
  openIndexRun(runId: string, corpusId: string, enrich: boolean, startedAt: string, sizes: { chunks: number; chars: number }): Promise<void>;
  answerAccounting(): AnswerAccounting;
}
