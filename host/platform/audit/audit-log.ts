import { appendFile, chmod } from 'node:fs/promises';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../../core/config/private-files.js';
import path from 'node:path';
import type { Logger } from 'pino';
import { maskPhone, maskRecordNumbers } from '../logging/text-masking.js';

export type AuditFields = Record<string, string | number | boolean | null | undefined>;

/** Fields that hold phone numbers: masked to the last four digits whatever the caller passed. */
const PHONE_FIELDS = new Set(['to', 'from', 'number', 'to_number', 'from_number']);

export interface AuditSink {
  write(record: Record<string, unknown>, line: string): Promise<void> | void;
  /** Several records at once, in order (one transaction for a database); `write` each when absent. */
  writeMany?(entries: Array<{ record: Record<string, unknown>; line: string }>): Promise<void> | void;
  close?(): Promise<void> | void;
}

interface PendingRecord {
  record: Record<string, unknown>;
  line: string;
  event: string;
  file: string | undefined;
}

export type AuditListener = (record: Record<string, unknown>) => void;

export interface AuditOptions {
  enabled: () => boolean;
  file: () => string | undefined;
  logger: Logger;
}

/**
 * Structured audit records (JSON, one line each) for job lifecycle, keys, admin and plugin
 * changes. Never document content or secrets; phone numbers are masked here as a last guard.
 */
export class AuditLog {
  private readonly sinks: AuditSink[] = [];
  private readonly listeners = new Set<AuditListener>();
  private chain: Promise<void> = Promise.resolve();
  /** Records made since the last batch began; written together by the next one. */
  private pending: PendingRecord[] = [];
  /** Audit files already set to 0600 by this process. */
  private readonly restricted = new Set<string>();

  constructor(private readonly options: AuditOptions) {}

  addSink(sink: AuditSink): void {
    this.sinks.push(sink);
  }

  /** Told of every record as it is made (the admin log tail); returns the unsubscribe. */
  subscribe(listener: AuditListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(event: string, fields: AuditFields = {}): void {
    if (!this.options.enabled()) return;
    const record: Record<string, unknown> = { ts: new Date().toISOString(), event };
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined) continue;
      // Numbers: masked to the last four digits, in number fields and in any text (a
      // provider's error) alike; ids, paths and addresses are left as they are.
      record[k] = PHONE_FIELDS.has(k) && typeof v === 'string' && !v.startsWith('***') ? maskPhone(v) : maskRecordNumbers(v, k);
    }
    const line = JSON.stringify(record);
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch {
        // A listener's failure is its own.
      }
    }
    // Records made while a batch is being written wait for the next one: under load one
    // database insert (one commit) and one file append carry many records, in order.
    this.pending.push({ record, line, event, file: this.options.file() });
    if (this.pending.length === 1) this.chain = this.chain.then(() => this.writeBatch());
  }

  private async writeBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      for (let i = 0; i < batch.length; ) {
        const file = batch[i]!.file;
        let j = i;
        while (j < batch.length && batch[j]!.file === file) j++;
        const run = batch.slice(i, j);
        if (file) {
          if (!this.restricted.has(file)) await ensurePrivateDir(path.dirname(file));
          await appendFile(file, run.map((r) => r.line + '\n').join(''), { mode: PRIVATE_FILE_MODE });
          if (!this.restricted.has(file)) {
            // Exact whatever the umask, and a file left 0644 by an older version is tightened.
            await chmod(file, PRIVATE_FILE_MODE);
            this.restricted.add(file);
          }
        } else {
          for (const r of run) this.options.logger.info({ audit: r.record }, 'audit');
        }
        i = j;
      }
      for (const sink of this.sinks) {
        if (sink.writeMany) await sink.writeMany(batch);
        else for (const r of batch) await sink.write(r.record, r.line);
      }
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message, events: batch.map((r) => r.event) }, 'audit write failed');
    }
  }

  /** Resolves once every record so far is written. */
  flush(): Promise<void> {
    return this.chain;
  }

  /** Writes what is pending, then closes every sink. */
  async close(): Promise<void> {
    await this.chain;
    for (const sink of this.sinks) await sink.close?.();
  }
}
