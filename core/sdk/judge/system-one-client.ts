import type { JudgeAnswer, JudgeRequest } from '../contracts/judge.js';
import type { EgressHttpClient } from '../plugin.js';
import { serverRetryDelayMs } from '../retry-after.js';
import { SystemOneError } from './system-one-error.js';
import { parseAnswer, requestBody } from './system-one-wire.js';

export interface SystemOneClientOptions {
  /** The plugin's egress-checked HTTP client. */
  http: EgressHttpClient;
  /** `{base}/v1/systemone`. */
  url: string;
  /** Sent with every attempt (the hosted backend's bearer credential, say). */
  headers?: Record<string, string>;
  /** Why the backend cannot be called at all (a missing credential); checked before any request. */
  unusable?: () => string | undefined;
  /** Used when a request names none. */
  defaultModel: string;
  /** Random source for the backoff jitter; tests pin it. */
  random?: () => number;
}

/** A failed attempt the policy may retry: its server hint and the delay planned before the next. */
class RetryableFailure extends SystemOneError {
  plannedDelayMs = 0;
  constructor(outcome: SystemOneError['outcome'], message: string, status: number | undefined, readonly serverDelayMs: number | undefined) {
    super(outcome, message, status);
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;

/** Backoff without a server hint: min(5 s, 0.5 s × 2^attempt), less up to 25 % jitter. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(5000, 500 * 2 ** attempt);
  return Math.round(base * (1 - 0.25 * random()));
}

/**
 * The one client behaviour of both judgment backends: retries after 408, 429, 5xx (529
 * included) and connection failures with exponential backoff and jitter, honouring
 * `retry-after-ms` and `Retry-After`; the whole call, sleeps included, stays inside its
 * budget; every failure is a typed SystemOneError; answers are validated.
 */
export function createSystemOneClient(options: SystemOneClientOptions): { ask(request: JudgeRequest): Promise<JudgeAnswer> } {
  const random = options.random ?? Math.random;
  return {
    async ask(request) {
      const problem = options.unusable?.();
      if (problem) throw new SystemOneError('unavailable', problem);
      const asked = Object.keys(request.questions);
      if (!asked.length) throw new SystemOneError('invalid_response', 'no question asked');
      // cockatiel is loaded with the first question, not when a judge plugin starts; before the
      // budget's clock starts, so loading it never eats into the caller's budget.
      const { DelegateBackoff, handleWhen, retry } = await import('cockatiel');
      const budgetMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const deadline = Date.now() + budgetMs;
      const body = JSON.stringify(requestBody(request, request.model ?? options.defaultModel));
      let attempt = 0;
      const policy = retry(
        handleWhen((err) => {
          if (!(err instanceof RetryableFailure)) return false;
          const delay = err.serverDelayMs ?? backoffDelayMs(attempt - 1, random);
          // Never sleep past the budget: with no time left for another attempt, fail now.
          if (Date.now() + delay >= deadline) {
            err.message = `${err.message} (no time left in the ${budgetMs} ms budget for another attempt)`;
            return false;
          }
          err.plannedDelayMs = delay;
          return true;
        }),
        {
          maxAttempts: request.maxRetries ?? DEFAULT_MAX_RETRIES,
          backoff: new DelegateBackoff((context) => ((context.result as { error?: unknown }).error as RetryableFailure | undefined)?.plannedDelayMs ?? 0),
        },
      );
      try {
        let lastFailure: RetryableFailure | undefined;
        return await policy.execute(async () => {
          attempt += 1;
          // A backoff sleep planned to end inside the budget may end past it on a busy machine:
          // the answer is then the failure that was being retried, not a timeout of no attempt.
          if (lastFailure && Date.now() >= deadline) {
            throw new SystemOneError(lastFailure.outcome, `${lastFailure.message} (the ${budgetMs} ms budget ended while waiting to retry)`, lastFailure.status);
          }
          try {
            return await attemptOnce(options, body, asked, deadline, budgetMs, request.signal);
          } catch (err) {
            if (err instanceof RetryableFailure) lastFailure = err;
            throw err;
          }
        }, request.signal);
      } catch (err) {
        if (err instanceof SystemOneError) throw err;
        if (request.signal?.aborted) throw new SystemOneError('cancelled', 'the caller cancelled the judgment call', undefined, { cause: err });
        throw new SystemOneError('unavailable', `judgment call failed: ${(err as Error)?.message ?? err}`, undefined, { cause: err });
      }
    },
  };
}

async function attemptOnce(
  options: SystemOneClientOptions,
  body: string,
  asked: string[],
  deadline: number,
  budgetMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<JudgeAnswer> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new SystemOneError('timeout', `no answer within the ${budgetMs} ms budget`);
  const budget = AbortSignal.timeout(remaining);
  const signal = callerSignal ? AbortSignal.any([callerSignal, budget]) : budget;
  let res: Response;
  try {
    res = await options.http.fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body,
      signal,
      timeoutMs: remaining,
      maxRedirects: 0,
    });
  } catch (err) {
    if (callerSignal?.aborted) throw new SystemOneError('cancelled', 'the caller cancelled the judgment call', undefined, { cause: err });
    if (budget.aborted || (err as Error)?.name === 'TimeoutError') throw new SystemOneError('timeout', `no answer within the ${budgetMs} ms budget`, undefined, { cause: err });
    if ((err as Error)?.name === 'EgressDeniedError') throw new SystemOneError('unavailable', (err as Error).message, undefined, { cause: err });
    throw new RetryableFailure('unavailable', `backend unreachable: ${connectionCode(err)}`, undefined, undefined);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (callerSignal?.aborted) throw new SystemOneError('cancelled', 'the caller cancelled the judgment call', undefined, { cause: err });
    if (budget.aborted) throw new SystemOneError('timeout', `no answer within the ${budgetMs} ms budget`, undefined, { cause: err });
    throw new RetryableFailure('unavailable', `connection lost while reading the answer: ${connectionCode(err)}`, undefined, undefined);
  }
  const status = res.status;
  if (status === 200) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SystemOneError('invalid_response', 'the answer is not JSON', status);
    }
    return parseAnswer(json, asked);
  }
  const hint = serverRetryDelayMs(res.headers);
  if (status === 429 || status === 529) throw new RetryableFailure('rate_limited', `backend rate limited the call (HTTP ${status})`, status, hint);
  if (status === 408 || status >= 500) throw new RetryableFailure('http_error', `backend answered HTTP ${status}`, status, hint);
  throw new SystemOneError('http_error', `backend answered HTTP ${status}${status === 401 || status === 403 ? ': the credential was refused' : ''}`, status);
}

function connectionCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (err as Error)?.message ?? 'connection failed';
}
