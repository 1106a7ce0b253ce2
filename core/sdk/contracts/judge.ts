/** The judge contract: typed yes/no questions answered with a probability of yes. */
export const JUDGE_CONTRACT = '1.2.0';

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

/** Whether a judge can answer now, as it says itself (contract 1.2). */
export interface JudgeReadiness {
  /** It can answer: a judge served locally once a model is resident, one reached over the network once it is configured. */
  ready: boolean;
  /** Its backend answered the check, ready or not (a local server that is up but still empty). Unset: as `ready`. */
  responding?: boolean;
  /** Why it is not ready, or what it serves. */
  detail?: string;
  /** What the operator can do about it. */
  hint?: string;
  /** Facts shown beside it in GET /api/ready (the URL it calls, the models loaded, ...). */
  info?: Record<string, unknown>;
}

export interface JudgeProvider {
  ask(request: JudgeRequest): Promise<JudgeAnswer>;
  /**
   * Where it answers from (contract 1.2). `local`: a server on this machine that the operator
   * runs; while it is the active judge GET /api/ready lists it, and it is alerted on when it stops
   * responding while it has traffic. `network`: a service reached over the network, alerted on by
   * its error rate. Unset: `network`.
   */
  readonly served?: 'local' | 'network';
  /** Whether it can answer now (contract 1.2); asked by GET /api/ready and the alert conditions. Unset: ready while active. */
  readiness?(): Promise<JudgeReadiness>;
}
