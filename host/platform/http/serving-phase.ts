import { httpError } from './error-catalogue.js';
import type { HttpError } from './errors.js';

/** Seconds a caller waits before trying again while the plugins load, or while this process drains. */
const RETRY_AFTER_LOADING_S = 1;
const RETRY_AFTER_DRAINING_S = 2;

/**
 * Whether this gateway's routes can answer for real. Until the first plugin generation is loaded
 * a route that depends on a plugin (a webhook alias, /openapi.json, /mcp) would answer wrongly
 * (404, an incomplete document), and a draining process takes no new work: both answer 503 with
 * Retry-After, so a provider or PBX delivers again instead of taking the answer as final.
 */
export class ServingPhase {
  // Routes declared outside a gateway serve at once; a gateway marks itself loading while it builds.
  private phase: 'loading' | 'serving' | 'draining' = 'serving';

  get state(): 'loading' | 'serving' | 'draining' {
    return this.phase;
  }

  loading(): void {
    if (this.phase === 'serving') this.phase = 'loading';
  }

  /** The first generation of plugins is loaded and every route they add is declared. */
  serving(): void {
    if (this.phase === 'loading') this.phase = 'serving';
  }

  draining(): void {
    this.phase = 'draining';
  }

  /** The answer of a request arriving now, or undefined while the gateway serves. */
  refusal(): HttpError | undefined {
    if (this.phase === 'loading') return httpError('plugins_loading').withHeaders({ 'Retry-After': String(RETRY_AFTER_LOADING_S) });
    if (this.phase === 'draining') return httpError('shutting_down').withHeaders({ 'Retry-After': String(RETRY_AFTER_DRAINING_S), Connection: 'close' });
    return undefined;
  }
}
