import type { Kysely, Selectable } from 'kysely';
import type { FaxTables, InboundFaxTable } from '../fax-tables.js';

export type InboundRow = Selectable<InboundFaxTable>;

export interface InboundFilter {
  to?: string | undefined;
  from?: string | undefined;
  status?: string | undefined;
  mailbox?: string | undefined;
  /** Only these mailboxes (a mailbox-limited key); undefined: all. */
  mailboxes?: readonly string[] | undefined;
  /** Epoch ms: created at or after. */
  since?: number | undefined;
}

/** Inbound faxes as rows; (provider, provider_id) is unique, which makes receipt idempotent. */
export class InboundStore {
  constructor(readonly db: Kysely<FaxTables>) {}

  get(id: string): Promise<InboundRow | undefined> {
    return this.db.selectFrom('inbound_faxes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byProviderId(provider: string, providerId: string): Promise<InboundRow | undefined> {
    return this.db.selectFrom('inbound_faxes').selectAll().where('provider', '=', provider).where('provider_id', '=', providerId).executeTakeFirst();
  }

  /** Inserts the row; false when (provider, provider_id) already exists (a concurrent replay). */
  async insert(row: InboundRow): Promise<boolean> {
    const r = await this.db
      .insertInto('inbound_faxes')
      .values(row)
      .onConflict((oc) => oc.columns(['provider', 'provider_id']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Newest first, keyset-paginated on (created_at, id). */
  list(filter: InboundFilter, limit: number, cursor?: { created: number; id: string }): Promise<InboundRow[]> {
    let q = this.db.selectFrom('inbound_faxes').selectAll();
    if (filter.to) q = q.where('to_number', '=', filter.to);
    if (filter.from) q = q.where('from_number', '=', filter.from);
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.mailbox) q = q.where('mailbox', '=', filter.mailbox);
    if (filter.mailboxes) q = filter.mailboxes.length ? q.where('mailbox', 'in', [...filter.mailboxes]) : q.where((eb) => eb.lit(false));
    if (filter.since !== undefined) q = q.where('created_at', '>=', filter.since);
    if (cursor) q = q.where((eb) => eb.or([eb('created_at', '<', cursor.created), eb.and([eb('created_at', '=', cursor.created), eb('id', '<', cursor.id)])]));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** How many inbound faxes are stored (the admin database status). */
  async count(): Promise<number> {
    const row = await this.db.selectFrom('inbound_faxes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
