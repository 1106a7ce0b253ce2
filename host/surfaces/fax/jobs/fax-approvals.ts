import { createHash, randomUUID } from 'node:crypto';
import { httpError } from '../../../platform/http/error-catalogue.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';

/** A document prepared for sending: what the approval binds. */
export interface PreparedFax {
  approvalId: string;
  /** The normalized destination. */
  to: string;
  bytes: Buffer;
  sha256: string;
  pages: number;
  /** Who prepared it (the caller's key id): nobody else may send it. */
  caller: string;
  expiresAt: number;
  state: 'ready' | 'sending' | 'sent';
}

/** Bounds what waiting approvals keep in memory (each holds its document until sent or expired). */
export const MAX_PENDING_APPROVALS = 100;

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Approvals of prepared faxes, in memory: an approval id names one document, one number and one
 * caller, lives MCP_APPROVAL_TTL_SECONDS, and sends once. POST /fax/prepare makes one, POST
 * /fax/approvals/{id}/send uses it; the MCP tools prepare_fax and send_fax call those routes.
 */
export class FaxApprovals {
  private readonly pending = new Map<string, PreparedFax>();

  constructor(
    private readonly ttlSeconds: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  prepare(caller: string, to: string, bytes: Buffer, pages: number): PreparedFax {
    this.sweep();
    if (this.pending.size >= MAX_PENDING_APPROVALS) throw httpError('approvals_pending_limit', { limit: MAX_PENDING_APPROVALS });
    const fax: PreparedFax = { approvalId: randomUUID(), to, bytes, sha256: sha256(bytes), pages, caller, expiresAt: this.now() + this.ttlSeconds() * 1000, state: 'ready' };
    this.pending.set(fax.approvalId, fax);
    return fax;
  }

  /**
   * The prepared fax an approval id names, claimed for sending, if this caller may send it and it
   * matches what the caller says it sends. Call `sent` or `release` after.
   */
  claim(caller: string, approvalId: string, expect: { to?: string | undefined; sha256?: string | undefined }): PreparedFax {
    const fax = this.pending.get(approvalId);
    if (!fax || fax.caller !== caller) throw httpError('approval_unknown');
    if (fax.state !== 'ready') throw httpError('approval_used');
    if (this.now() > fax.expiresAt) throw httpError('approval_expired', { ttl: 'MCP_APPROVAL_TTL_SECONDS' });
    if (expect.to !== undefined && expect.to !== fax.to) throw httpError('approval_mismatch', { differs: `number (the approval is for ${maskPhone(fax.to)})` });
    if (expect.sha256 !== undefined && expect.sha256.toLowerCase() !== fax.sha256) throw httpError('approval_mismatch', { differs: 'document (its SHA-256 differs)' });
    fax.state = 'sending';
    return fax;
  }

  /** The send went through: the approval is spent and its document dropped. */
  sent(fax: PreparedFax): void {
    fax.state = 'sent';
    fax.bytes = Buffer.alloc(0);
  }

  /** The send failed before a job was made: the approval may be used again while it lives. */
  release(fax: PreparedFax): void {
    if (fax.state === 'sending') fax.state = 'ready';
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, fax] of this.pending) if (now > fax.expiresAt + 3600_000 || (fax.state === 'sent' && now > fax.expiresAt)) this.pending.delete(id);
  }
}
