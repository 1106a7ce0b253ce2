import type { Kysely } from 'kysely';
import type { PlatformTables } from '../db/schema.js';
import type { AuditSink } from './audit-log.js';

export interface StoredAuditRecord {
  id: number;
  record: Record<string, unknown>;
}

/** Audit records in the `audit_events` table: what /admin/logs reads, shared by every instance. */
export class DatabaseAuditSink implements AuditSink {
  constructor(private readonly db: Kysely<PlatformTables>) {}

  async write(record: Record<string, unknown>, line: string): Promise<void> {
    await this.db
      .insertInto('audit_events')
      .values({ ts: String(record.ts), event: String(record.event), record: line })
      .execute();
  }

  /** One statement per 200 records: a batch is one commit, within SQLite's variable limit. */
  async writeMany(entries: Array<{ record: Record<string, unknown>; line: string }>): Promise<void> {
    for (let i = 0; i < entries.length; i += 200) {
      const rows = entries.slice(i, i + 200).map(({ record, line }) => ({ ts: String(record.ts), event: String(record.event), record: line }));
      await this.db.insertInto('audit_events').values(rows).execute();
    }
  }

  /** Newest first; `before` pages backwards by id. */
  async recent(filter: { event?: string | undefined; limit: number; before?: number | undefined }): Promise<StoredAuditRecord[]> {
    let q = this.db.selectFrom('audit_events').select(['id', 'record']);
    if (filter.event) q = q.where('event', '=', filter.event);
    if (filter.before !== undefined) q = q.where('id', '<', filter.before);
    const rows = await q.orderBy('id', 'desc').limit(filter.limit).execute();
    return rows.map((r) => ({ id: Number(r.id), record: JSON.parse(r.record) as Record<string, unknown> }));
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('audit_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
