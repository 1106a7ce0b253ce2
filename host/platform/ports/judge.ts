import type { JudgeAnswer, JudgeRequest } from '../../../core/sdk/contracts/judge.js';

/** Typed questions to the configured judge backend, for surfaces other than the workbench. */
export interface JudgePort {
  /** `caller` names who asks (`reranker`, `lab`), for the judge's call statistics. */
  ask(request: Omit<JudgeRequest, 'timeoutMs' | 'maxRetries'>, caller: string): Promise<JudgeAnswer>;
}
