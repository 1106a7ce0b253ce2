import { json } from '../../../../support/gateway.js';

export const GATEWAY_KEY = 'sk-accounting-gateway';
export const PRICES = { 'emb-small': { input_per_1m: 0.02 }, 'gen-1': { input_per_1m: 0.15, output_per_1m: 0.6 } };

/** Environment of these tests: repositories only (environment values win over live updates). */
export function accountingEnv(repos: Record<string, string>): Record<string, string> {
  return { REPOS: JSON.stringify(repos), REPO: Object.keys(repos)[0]!, EMBEDDING_BATCH_SIZE: '2' };
}

/** Live settings: embeddings and generation through the loopback fake, so tests can change them. */
export function accountingSettings(fakeUrl: string): Record<string, unknown> {
  return {
    EMBEDDING_MODEL: 'emb-small',
    LLM_GATEWAY_URL: fakeUrl,
    LLM_GATEWAY_API_KEY: GATEWAY_KEY,
    'embedding.price_table': PRICES,
    'embedding.embedding_retry_max': 3,
  };
}

export async function runRecord(url: string, corpus: string, runId: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/index/${corpus}/runs/${runId}`);
  return { status: res.status, body: await json(res) };
}

export async function reconcileRun(url: string, corpus: string, runId: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/index/${corpus}/runs/${runId}/costs/reconcile`, { method: 'POST' });
  return { status: res.status, body: await json(res) };
}

export async function latestRun(url: string, corpus: string, query = ''): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/index/${corpus}/runs/latest${query}`);
  return { status: res.status, body: await json(res) };
}

export const codes = (record: any): string[] => (record.costs?.reasons ?? []).map((r: any) => r.code);
