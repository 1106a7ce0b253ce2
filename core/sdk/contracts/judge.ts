/** The judge contract: typed yes/no questions answered with a probability of yes. */
export const JUDGE_CONTRACT = '1.1.0';

export interface JudgeQuestion {
  type: 'noul';
  instructions: string | Record<string, unknown> | unknown[];
  criteria?: { true: unknown; false: unknown };
}

export interface JudgeRequest {
  model?: string;
  state: string | Record<string, unknown> | unknown[];
  questions: Record<string, JudgeQuestion>;
  signal?: AbortSignal;
  /** Total budget of the call in milliseconds, retries and backoff included (contract 1.1). */
  timeoutMs?: number;
  /** Retries after 408, 429, 5xx or a connection failure; 0 disables them (contract 1.1). */
  maxRetries?: number;
}

export interface JudgeAnswer {
  model: string;
  /** Probability of yes, 0..1, per question id. */
  answers: Record<string, number>;
  usage: { input_tokens: number; output_tokens: number };
}

export interface JudgeProvider {
  ask(request: JudgeRequest): Promise<JudgeAnswer>;
}
