import { createHash, randomUUID } from 'node:crypto';
import type { Kysely, RawBuilder, Selectable } from 'kysely';
import type { StorageProvider } from '../../../../core/sdk/index.js';
import type { FaxTables, FaxApprovalTable } from '../fax-tables.js';
import type { Dialect } from '../../../platform/db/database.js';
import { databaseNow, databaseNowPlus } from '../../../platform/db/database-clock.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import { faxErrors } from '../fax-errors.js';

/** A document prepared for sending: what the approval binds. */
export interface PreparedFax {
  approvalId: string;
  /** The normalized destination. */
  to: string;
  sha256: string;
  size: number;
  pages: number;
  /** Who prepared it (the caller's key id): nobody else may send it. */
  caller: string;
  expiresAt: number;
  /** Where the document is, in the configured storage. */
  documentKey: string;
}

/** Bounds the approvals waiting in the cluster (each keeps its document in storage until sent or expired). */
export const MAX_PENDING_APPROVALS = 100;

/** How long a send holds its claim; an instance that dies mid-send leaves the approval usable after this. */
export const APPROVAL_CLAIM_MS = 120_000;

/** Rows (and documents) of unsent approvals stay this long past their expiry, so a send under way never loses its document. */
export const APPROVAL_SWEEP_GRACE_MS = 3600_000;

/** Approval documents live under this storage prefix, one object per approval. */
export const APPROVALS_PREFIX = 'fax-approvals';
export const approvalDocumentKey = (id: string) => `${APPROVALS_PREFIX}/${id}/document`;

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** An approval row with the database's time it was read at, the clock its expiry and claim are in. */
type Row = Selectable<FaxApprovalTable> & { db_now: number };

/**
 * Approvals of prepared faxes, in the shared database with their documents in the configured
 * storage, so an approval prepared on one instance of a cluster is sent from any: an approval id
 * names one document, one number and one caller, lives MCP_APPROVAL_TTL_SECONDS, and sends once.
 * POST /fax/prepare makes one, POST /fax/approvals/{id}/send uses it; the MCP tools prepare_fax
 * and send_fax call those routes. Single use is one conditional UPDATE (`ready` to `sending`),
 * so two instances sending the same approval at once cannot both win.
 *
 * Expiry and claims are written and compared in the database's clock (database-clock.ts), never
 * an instance's: the instance that prepares and the one that sends may disagree on the time.
 */
export class FaxApprovals {
  private readonly dbNow: RawBuilder<number>;

  constructor(
    private readonly deps: {
      db: Kysely<FaxTables>;
      dialect: Dialect;
      withStorage: <T>(fn: (storage: StorageProvider) => Promise<T>) => Promise<T>;
      ttlSeconds: () => number;
      /** Approvals one caller may have waiting (FAX_APPROVALS_PENDING_PER_KEY), besides the cluster's MAX_PENDING_APPROVALS. */
      perKeyLimit?: () => number;
      /** How long a send holds its claim (APPROVAL_CLAIM_MS unless given). */
      claimMs?: number;
    },
  ) {
    this.dbNow = databaseNow(deps.dialect);
  }

  async prepare(caller: string, to: string, bytes: Buffer, pages: number): Promise<PreparedFax> {
    const { db, dialect } = this.deps;
    await this.refuseOverLimit(caller);
    const id = randomUUID();
    const documentKey = approvalDocumentKey(id);
    const digest = sha256(bytes);
    // The document first: a row never names a document that is not there.
    await this.deps.withStorage((s) => s.put(documentKey, bytes));
    let written;
    try {
      written = await db
        .insertInto('fax_approvals')
        .values({ id, caller, to_number: to, document_sha256: digest, document_key: documentKey, size_bytes: bytes.length, pages, state: 'ready', claimed_until: null, job_id: null, created_at: this.dbNow, expires_at: databaseNowPlus(dialect, this.deps.ttlSeconds() * 1000) })
        .returning('expires_at')
        .executeTakeFirstOrThrow();
    } catch (err) {
      await this.deps.withStorage((s) => s.delete(documentKey)).catch(() => false);
      throw err;
    }
    return { approvalId: id, to, sha256: digest, size: bytes.length, pages, caller, expiresAt: Number(written.expires_at), documentKey };
  }

  /**
   * Throws approvals_pending_limit when the caller, or the cluster, has as many approvals waiting
   * as it may: one key cannot fill the cluster's cap for every other. Retry-After is when the
   * oldest waiting one of the full count expires, in the database's clock.
   */
  private async refuseOverLimit(caller: string): Promise<void> {
    const { db } = this.deps;
    const perKey = this.deps.perKeyLimit?.() ?? MAX_PENDING_APPROVALS;
    const waiting = (mine: boolean) => {
      let q = db
        .selectFrom('fax_approvals')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('expires_at').as('first_expiry'), this.dbNow.as('db_now')])
        .where('state', '!=', 'sent')
        .where('expires_at', '>=', this.dbNow);
      if (mine) q = q.where('caller', '=', caller);
      return q.executeTakeFirstOrThrow();
    };
    for (const [mine, limit, whose] of [[true, perKey, 'of this API key'], [false, MAX_PENDING_APPROVALS, 'in the cluster']] as const) {
      const row = await waiting(mine);
      if (Number(row.n) < limit) continue;
      const seconds = (Number(row.first_expiry) - Number(row.db_now)) / 1000;
      throw faxErrors.error('approvals_pending_limit', { limit, whose }).retryAfter(seconds);
    }
  }

  /**
   * The prepared fax an approval id names, claimed for sending, if this caller may send it and it
   * matches what the caller says it sends. Call `sent` or `release` after.
   */
  async claim(caller: string, approvalId: string, expect: { to?: string | undefined; sha256?: string | undefined }): Promise<PreparedFax> {
    const { db, dialect } = this.deps;
    const row = await this.read(approvalId);
    if (!row || row.caller !== caller) throw faxErrors.error('approval_unknown');
    this.refuse(row);
    if (expect.to !== undefined && expect.to !== row.to_number) throw faxErrors.error('approval_mismatch', { differs: `number (the approval is for ${maskPhone(row.to_number)})` });
    if (expect.sha256 !== undefined && expect.sha256.toLowerCase() !== row.document_sha256) throw faxErrors.error('approval_mismatch', { differs: 'document (its SHA-256 differs)' });
    // The single use: only one UPDATE finds it ready (or its claim lapsed), on whichever instance.
    const claimed = await db
      .updateTable('fax_approvals')
      .set({ state: 'sending', claimed_until: databaseNowPlus(dialect, this.deps.claimMs ?? APPROVAL_CLAIM_MS) })
      .where('id', '=', approvalId)
      .where('caller', '=', caller)
      .where('expires_at', '>=', this.dbNow)
      .where((eb) => eb.or([eb('state', '=', 'ready'), eb.and([eb('state', '=', 'sending'), eb('claimed_until', '<', this.dbNow)])]))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) {
      const after = await this.read(approvalId);
      if (after) this.refuse(after);
      throw faxErrors.error('approval_used');
    }
    return { approvalId, to: row.to_number, sha256: row.document_sha256, size: Number(row.size_bytes), pages: row.pages, caller, expiresAt: Number(row.expires_at), documentKey: row.document_key };
  }

  /** The claimed approval's document, from storage, refused unless it is byte for byte the approved one (a shared bucket may be written by others). */
  async document(fax: PreparedFax): Promise<Buffer> {
    const bytes = await this.deps.withStorage((s) => s.get(fax.documentKey));
    if (sha256(bytes) !== fax.sha256) throw faxErrors.error('approval_document_changed');
    return bytes;
  }

  /** The send went through: the approval is spent and its document removed. */
  async sent(fax: PreparedFax, jobId: string): Promise<void> {
    await this.deps.db.updateTable('fax_approvals').set({ state: 'sent', claimed_until: null, job_id: jobId }).where('id', '=', fax.approvalId).execute();
    await this.deps.withStorage((s) => s.delete(fax.documentKey)).catch(() => false);
  }

  /** The send failed before a job was made: the approval may be used again while it lives. */
  async release(fax: PreparedFax): Promise<void> {
    await this.deps.db.updateTable('fax_approvals').set({ state: 'ready', claimed_until: null }).where('id', '=', fax.approvalId).where('state', '=', 'sending').execute();
  }

  /**
   * Removes spent approvals past their expiry and unsent ones an hour past it, with their
   * documents, and documents under the prefix that no row names (older than the grace). Run by
   * the artifact cleanup, on one instance of a cluster. Returns the approvals removed.
   */
  async sweep(storage: StorageProvider, now = Date.now()): Promise<number> {
    const { db, dialect } = this.deps;
    let removed = 0;
    const graceAgo = databaseNowPlus(dialect, -APPROVAL_SWEEP_GRACE_MS);
    for (;;) {
      const rows = await db
        .selectFrom('fax_approvals')
        .select(['id', 'document_key'])
        .where((eb) => eb.or([eb.and([eb('state', '=', 'sent'), eb('expires_at', '<', this.dbNow)]), eb('expires_at', '<', graceAgo)]))
        .limit(200)
        .execute();
      for (const row of rows) {
        await storage.delete(row.document_key);
        await db.deleteFrom('fax_approvals').where('id', '=', row.id).execute();
        removed++;
      }
      if (rows.length < 200) break;
    }
    // File times are the storage's clock (a local disk's is this machine's): judged by `now`, not the database's time.
    const entries = (await storage.list(`${APPROVALS_PREFIX}/`)).filter((e) => now - e.modifiedAt.getTime() > APPROVAL_SWEEP_GRACE_MS);
    const ids = [...new Set(entries.map((e) => e.key.split('/')[1]!).filter(Boolean))];
    for (let i = 0; i < ids.length; i += 200) {
      const chunk = ids.slice(i, i + 200);
      const live = new Set((await db.selectFrom('fax_approvals').select('id').where('id', 'in', chunk).execute()).map((r) => r.id));
      for (const e of entries) if (chunk.includes(e.key.split('/')[1]!) && !live.has(e.key.split('/')[1]!)) await storage.delete(e.key);
    }
    return removed;
  }

  private read(approvalId: string): Promise<Row | undefined> {
    return this.deps.db.selectFrom('fax_approvals').selectAll().select(this.dbNow.as('db_now')).where('id', '=', approvalId).executeTakeFirst();
  }

  /** Why a row cannot be claimed at the database's time it was read, if it cannot: spent or being sent, or expired. */
  private refuse(row: Row): void {
    const now = Number(row.db_now);
    if (row.state === 'sent' || (row.state === 'sending' && Number(row.claimed_until ?? 0) >= now)) throw faxErrors.error('approval_used');
    if (now > Number(row.expires_at)) throw faxErrors.error('approval_expired', { ttl: 'MCP_APPROVAL_TTL_SECONDS' });
  }
}
