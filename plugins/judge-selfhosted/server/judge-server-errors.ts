/**
 * What the judge server answers when it cannot answer: the gateway API's `{detail, code}` shape
 * with the same codes and statuses (listed in docs/workbench/judge.md). The server is its own
 * process and speaks for itself: it shares no error catalogue with the gateway.
 */
const STATUS = {
  validation_error: 400,
  route_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  json_body_required: 415,
  judge_model_not_served: 422,
  internal_error: 500,
  judge_checkpoint_missing: 503,
} as const;

export type JudgeServerCode = keyof typeof STATUS;

export class JudgeServerError extends Error {
  readonly status: number;

  constructor(readonly code: JudgeServerCode, detail: string, status?: number) {
    super(detail);
    this.name = 'JudgeServerError';
    this.status = status ?? STATUS[code];
  }

  get body(): { detail: string; code: JudgeServerCode } {
    return { detail: this.message, code: this.code };
  }
}

/** A request the server could not read (not JSON, a field missing or of the wrong type): 400. */
export const malformed = (field: string, problem: string) => new JudgeServerError('validation_error', `${field}: ${problem}`);
/** A request it read but refuses (a state nested too deeply): 422. */
export const refused = (field: string, problem: string) => new JudgeServerError('validation_error', `${field}: ${problem}`, 422);
export const tooLarge = (what: string, limit: string) => new JudgeServerError('payload_too_large', `${what} too large: the limit is ${limit}`);
