import { OutboundGuard } from '../../../../core/kernel/egress.js';
import type { LlmGatewayEndpoint } from '../gateway-endpoint.js';

/** One ledger row as reconciliation uses it (from LiteLLM's spend log shape). */
export interface LedgerRow {
  requestId: string;
  callType: string;
  sessionId?: string;
  runId?: string;
  lane?: string;
  model: string;
  status: 'success' | 'failure';
  spend?: number;
  /** The gateway attached a cost breakdown: its spend is a metered value, zero included. */
  priced: boolean;
  cacheHit: boolean;
  promptTokens?: number;
  completionTokens?: number;
  attemptedRetries?: number;
  maxRetries?: number;
}

export interface SpendLedgerOptions extends Partial<Omit<LlmGatewayEndpoint, 'baseUrl'>> {
  /** LLM_GATEWAY_URL (a trailing /v1 is dropped: the ledger lives at the root). */
  baseUrl: string;
  /** The outbound guard a run-time URL goes through; a strict one without it. */
  guard?: OutboundGuard;
  pageSize: number;
  maxPages: number;
  maxPageBytes: number;
  timeoutMs: number;
}

export class LedgerReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerReadError';
  }
}

/**
 * Reads the gateway's native spend ledger, `GET /spend/logs/v2`, for one session: bearer-
 * authenticated, each page under a deadline and a byte cap, at most `maxPages` pages, stopping
 * at the first short page.
 */
export async function readSpendLedger(options: SpendLedgerOptions, sessionId: string, from: Date, to: Date): Promise<LedgerRow[]> {
  const root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const rows: LedgerRow[] = [];
  for (let page = 1; ; page++) {
    if (page > options.maxPages) throw new LedgerReadError(`the ledger has more than ${options.maxPages} pages for this run (accounting.ledger_max_pages)`);
    const url = new URL(`${root}/spend/logs/v2`);
    url.search = new URLSearchParams({
      start_date: ledgerDate(from),
      end_date: ledgerDate(to),
      session_id: sessionId,
      page: String(page),
      page_size: String(options.pageSize),
      sort_by: 'startTime',
      sort_order: 'asc',
    }).toString();
    const body = await readPage(url, options);
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw new LedgerReadError('the ledger answered without a data array');
    for (const raw of data) rows.push(toRow(raw));
    if (data.length < options.pageSize) return rows.filter((r) => r.sessionId === sessionId || r.runId === sessionId);
  }
}

async function readPage(url: URL, options: SpendLedgerOptions): Promise<unknown> {
  let response: Response;
  if (options.withheld) throw new LedgerReadError(options.withheld);
  const send = options.runtimeUrl ? (u: URL, init: RequestInit) => (options.guard ?? new OutboundGuard()).fetch(u, init) : fetch;
  try {
    response = await send(url, {
      headers: { accept: 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    throw new LedgerReadError(`the ledger could not be read: ${(err as Error).message}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new LedgerReadError(`the ledger answered HTTP ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > options.maxPageBytes) {
        await response.body?.cancel().catch(() => {});
        throw new LedgerReadError(`a ledger page is larger than ${options.maxPageBytes} bytes (accounting.ledger_max_page_bytes)`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof LedgerReadError) throw err;
    throw new LedgerReadError(`the ledger could not be read: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new LedgerReadError('the ledger answered something that is not JSON');
  }
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the ledger's date format. */
export function ledgerDate(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

function parseMaybeJson(value: unknown): Record<string, any> {
  if (typeof value === 'string') {
    try {
      const parsed = JSON.parse(value);
      return parsed && typeof parsed === 'object' ? parsed : {};
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' ? (value as Record<string, any>) : {};
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : undefined);

function toRow(raw: unknown): LedgerRow {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, any>;
  const metadata = parseMaybeJson(r.metadata);
  const spendMeta = parseMaybeJson(metadata.spend_logs_metadata);
  const usage = parseMaybeJson(metadata.usage_object);
  const breakdown = metadata.cost_breakdown && typeof metadata.cost_breakdown === 'object' ? metadata.cost_breakdown : undefined;
  const row: LedgerRow = {
    requestId: String(r.request_id ?? ''),
    callType: String(r.call_type ?? ''),
    model: String(r.model ?? ''),
    status: r.status === 'failure' ? 'failure' : 'success',
    priced: !!breakdown && num(breakdown.total_cost) !== undefined,
    cacheHit: r.cache_hit === true || r.cache_hit === 'True' || r.cache_hit === 'true',
  };
  if (typeof r.session_id === 'string') row.sessionId = r.session_id;
  if (typeof spendMeta.run_id === 'string') row.runId = spendMeta.run_id;
  if (typeof spendMeta.lane === 'string') row.lane = spendMeta.lane;
  const spend = num(r.spend);
  if (spend !== undefined) row.spend = spend;
  const prompt = num(usage.prompt_tokens ?? r.prompt_tokens);
  if (prompt !== undefined) row.promptTokens = prompt;
  const completion = num(usage.completion_tokens ?? r.completion_tokens);
  if (completion !== undefined) row.completionTokens = completion;
  const attempted = num(metadata.attempted_retries);
  if (attempted !== undefined) row.attemptedRetries = attempted;
  const max = num(metadata.max_retries);
  if (max !== undefined) row.maxRetries = max;
  return row;
}
