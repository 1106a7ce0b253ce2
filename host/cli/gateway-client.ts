import type { CliOutput } from './main.js';

/** An answer of the gateway that was not 2xx: its `{detail, code}` body, or what came instead. */
export class GatewayAnswerError extends Error {
  constructor(readonly status: number, readonly code: string | undefined, detail: string) {
    super(detail);
    this.name = 'GatewayAnswerError';
  }
}

/** A running gateway's HTTP API, at SWITCHBOARD_URL with the key of SWITCHBOARD_API_KEY. */
export class GatewayClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.baseUrl = (env.SWITCHBOARD_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
    this.apiKey = env.SWITCHBOARD_API_KEY || undefined;
  }

  async json<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}) };
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new GatewayAnswerError(0, undefined, `no gateway answers at ${this.baseUrl} (${cause}): start one with \`switchboard start\` or set SWITCHBOARD_URL`);
    }
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const error = (parsed ?? {}) as { detail?: unknown; code?: unknown };
      const detail = typeof error.detail === 'string' ? error.detail : text.slice(0, 200) || res.statusText;
      const hint = res.status === 401 || res.status === 403 ? ' (set SWITCHBOARD_API_KEY to a key with the scope this needs)' : '';
      throw new GatewayAnswerError(res.status, typeof error.code === 'string' ? error.code : undefined, `${detail}${hint}`);
    }
    if (parsed === undefined) throw new GatewayAnswerError(res.status, undefined, `the gateway at ${this.baseUrl} answered something other than JSON`);
    return parsed as T;
  }
}

/** Runs a command that talks to the gateway; its failure is one readable line and exit code 1. */
export async function withGateway(io: CliOutput, run: (client: GatewayClient) => Promise<number>): Promise<number> {
  try {
    return await run(new GatewayClient());
  } catch (err) {
    if (!(err instanceof GatewayAnswerError)) throw err;
    io.err(`switchboard: ${err.status ? `HTTP ${err.status}${err.code ? ` ${err.code}` : ''}: ` : ''}${err.message}`);
    return 1;
  }
}
