import type { Kysely } from 'kysely';
import type { FaxTables } from '../fax-tables.js';
import { faxErrors } from '../fax-errors.js';

/** What makes two submits "the same": who sent it, under which key, and what was asked. */
export interface IdempotentSubmit {
  /** The caller's API key id, or the caller kind without one: keys of different callers never meet. */
  scope: string;
  key: string;
  documentSha256: string;
  to: string;
  /** SHA-256 of the other fields (cover page, retry policy). */
  optionsSha256: string;
}

/**
 * Idempotency-Key records of POST /fax. The primary key (scope, key) is the guard: the record
 * is inserted in the same transaction as its job, so of concurrent duplicates exactly one makes
 * a job and the others find it.
 */
export class IdempotencyKeys {
  constructor(private readonly db: Kysely<FaxTables>) {}

  /**
   * The job an unexpired earlier submit with this key made, or undefined when there is none.
   * Throws idempotency_key_reused when that submit asked for something else.
   */
  async jobOf(submit: IdempotentSubmit, now = Date.now(), db: Kysely<FaxTables> = this.db): Promise<string | undefined> {
    const row = await db.selectFrom('fax_idempotency_keys').selectAll().where('scope', '=', submit.scope).where('key', '=', submit.key).where('expires_at', '>', now).executeTakeFirst();
    if (!row) return undefined;
    const differs = [
      row.document_sha256 !== submit.documentSha256 ? 'document' : undefined,
      row.to_number !== submit.to ? 'destination number' : undefined,
      row.options_sha256 !== submit.optionsSha256 ? 'cover page or retry options' : undefined,
    ].filter(Boolean);
    if (differs.length) throw faxErrors.error('idempotency_key_reused', { differs: differs.join(' and ') });
    return row.job_id;
  }

  /**
   * Records the key for `jobId` within the caller's transaction; false when another submit holds
   * it (the caller rolls back and answers that submit's job). An expired record is replaced.
   */
  async claim(trx: Kysely<FaxTables>, submit: IdempotentSubmit, jobId: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    await trx.deleteFrom('fax_idempotency_keys').where('scope', '=', submit.scope).where('key', '=', submit.key).where('expires_at', '<=', now).execute();
    const r = await trx
      .insertInto('fax_idempotency_keys')
      .values({
        scope: submit.scope,
        key: submit.key,
        job_id: jobId,
        document_sha256: submit.documentSha256,
        to_number: submit.to,
        options_sha256: submit.optionsSha256,
        created_at: now,
        expires_at: now + ttlMs,
      })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  /** Removes expired records; the number removed. */
  async sweepExpired(now = Date.now()): Promise<number> {
    const r = await this.db.deleteFrom('fax_idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
