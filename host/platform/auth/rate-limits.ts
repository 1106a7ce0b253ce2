import type pg from 'pg';
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';

// The two limiters used, not the package index (which loads every store it supports, 36
// modules); the PostgreSQL one only when a pool is given.
const require = createRequire(import.meta.url);
// Each of these modules exports its class itself.
const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
const loadPostgresLimiter = () => require('rate-limiter-flexible/lib/RateLimiterPostgres.js') as typeof Flexible.RateLimiterPostgres;
type RateLimiterAbstract = Flexible.RateLimiterAbstract;

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window frees a request (for Retry-After). */
  retryAfterSeconds: number;
  limit: number;
}

/**
 * Requests per minute per caller and bucket (fixed one-minute windows). In memory for one
 * instance (SQLite); with PostgreSQL the counters live in the `rate_limits` table, so every
 * instance draws from the same budget.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly options: { pool?: pg.Pool | undefined; onStoreError?: (err: unknown) => void }) {}

  get shared(): boolean {
    return !!this.options.pool;
  }

  /** Counts one request of `caller` against `limit` per minute in `bucket`. */
  async consume(bucket: string, caller: string, limit: number): Promise<RateDecision> {
    try {
      await this.limiter(bucket, limit).consume(caller, 1);
      return { allowed: true, retryAfterSeconds: 0, limit };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)), limit };
      }
      // The shared store failed: let the request through rather than refuse everyone.
      this.options.onStoreError?.(err);
      return { allowed: true, retryAfterSeconds: 0, limit };
    }
  }

  // One limiter per bucket and limit; limiters of one bucket share their counters (same prefix).
  private limiter(bucket: string, points: number): RateLimiterAbstract {
    const id = `${bucket}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const base = { keyPrefix: `rl_${bucket}`, points, duration: 60 };
      limiter = this.options.pool
        ? new (loadPostgresLimiter())({ ...base, storeClient: this.options.pool, storeType: 'pool', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: true })
        : new RateLimiterMemory(base);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
