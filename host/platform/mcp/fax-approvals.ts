import { createHash, randomUUID } from 'node:crypto';
import { realpath, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { maskPhone } from '../logging/text-masking.js';

/** A refusal an MCP tool reports as a tool error with this detail. */
export class ToolRefusal extends Error {}

/** A document prepared for sending: what the approval binds. */
export interface PreparedFax {
  approvalId: string;
  to: string;
  bytes: Buffer;
  sha256: string;
  pages: number;
  /** Who prepared it (a digest of the caller's key): nobody else may send it. */
  caller: string;
  expiresAt: number;
  used: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** The fax API's own upload limit applies on send; this bounds what an approval keeps in memory. */
const MAX_PENDING = 100;

/** The bytes of a base64 document; refuses anything that is not strict base64 of a non-empty document. */
export function decodeBase64Document(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!compact || compact.length % 4 !== 0 || !BASE64.test(compact)) throw new ToolRefusal('document_base64 is not valid base64');
  return Buffer.from(compact, 'base64');
}

/** The bytes of a file inside the outbox directory; any path that resolves outside it is refused. */
export async function readOutboxFile(outboxDir: string | undefined, filePath: string): Promise<Buffer> {
  if (!outboxDir) throw new ToolRefusal('file_path needs MCP_OUTBOX_DIR to be set; send document_base64 instead');
  const root = await realpath(outboxDir);
  let resolved: string;
  try {
    resolved = await realpath(path.resolve(root, filePath));
  } catch {
    throw new ToolRefusal('no such file in the outbox directory');
  }
  // realpath first: a symlink inside the outbox that points out of it is outside too.
  if (!resolved.startsWith(root + path.sep)) throw new ToolRefusal('file_path is outside the outbox directory (MCP_OUTBOX_DIR)');
  if (!(await stat(resolved)).isFile()) throw new ToolRefusal('file_path is not a file');
  return readFile(resolved);
}

/** Pages of the document as the fax will have them (a PDF's page count; an image is one page; text at 60 lines a page). */
export async function countPages(bytes: Buffer): Promise<number> {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') {
    try {
      // pdf-lib loads on the first PDF an MCP tool counts, not with the gateway.
      const { PDFDocument } = await import('pdf-lib');
      return (await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false })).getPageCount();
    } catch {
      throw new ToolRefusal('the document starts as a PDF but cannot be read as one');
    }
  }
  const head = bytes.subarray(0, 4).toString('hex');
  if (head.startsWith('89504e47') || head.startsWith('ffd8ff') || head === '49492a00' || head === '4d4d002a') return 1;
  return Math.max(1, Math.ceil(bytes.toString('utf8').split('\n').length / 60));
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The caller an approval is bound to: a digest of the key, never the key itself. */
export function callerOf(apiKey: string | undefined): string {
  return apiKey ? sha256(Buffer.from(apiKey)).slice(0, 32) : 'local';
}

/**
 * Approvals of prepared faxes, in memory: an approval id names one document, one number and one
 * caller, lives MCP_APPROVAL_TTL_SECONDS, and sends once (its id is the send's Idempotency-Key).
 */
export class FaxApprovals {
  private readonly pending = new Map<string, PreparedFax>();

  constructor(
    private readonly ttlSeconds: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  async prepare(caller: string, to: string, bytes: Buffer): Promise<PreparedFax> {
    if (bytes.length === 0) throw new ToolRefusal('the document is empty');
    const pages = await countPages(bytes);
    this.sweep();
    if (this.pending.size >= MAX_PENDING) throw new ToolRefusal(`too many prepared faxes waiting (${MAX_PENDING}); send or let some expire first`);
    const fax: PreparedFax = { approvalId: randomUUID(), to, bytes, sha256: sha256(bytes), pages, caller, expiresAt: this.now() + this.ttlSeconds() * 1000, used: false };
    this.pending.set(fax.approvalId, fax);
    return fax;
  }

  /** The prepared fax an approval id names, if this caller may send it and it matches what the caller says it sends. */
  take(caller: string, approvalId: string, expect: { to?: string | undefined; sha256?: string | undefined }): PreparedFax {
    const fax = this.pending.get(approvalId);
    if (!fax || fax.caller !== caller) throw new ToolRefusal('unknown approval id (prepare the fax with prepare_fax first)');
    if (fax.used) throw new ToolRefusal('this approval was used already: prepare the fax again to send it again');
    if (this.now() > fax.expiresAt) throw new ToolRefusal('this approval expired (MCP_APPROVAL_TTL_SECONDS): prepare the fax again');
    if (expect.to !== undefined && expect.to !== fax.to) throw new ToolRefusal(`this approval is for another number (${maskPhone(fax.to)})`);
    if (expect.sha256 !== undefined && expect.sha256.toLowerCase() !== fax.sha256) throw new ToolRefusal('this approval is for another document (its SHA-256 differs)');
    return fax;
  }

  markSent(fax: PreparedFax): void {
    fax.used = true;
    fax.bytes = Buffer.alloc(0);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, fax] of this.pending) if (now > fax.expiresAt + 3600_000 || (fax.used && now > fax.expiresAt)) this.pending.delete(id);
  }
}
