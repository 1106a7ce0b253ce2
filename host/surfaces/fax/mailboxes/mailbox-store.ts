import type { Kysely, Selectable } from 'kysely';
import type { FaxTables, MailboxTable } from '../fax-tables.js';

/** A called-number rule: the number itself, or every number that starts with it. */
export interface MailboxRule {
  match: 'exact' | 'prefix';
  number: string;
}

/** Where the mailbox's inbound faxes are also handed: an inbound-sink plugin and its recipients. */
export interface MailboxSink {
  /** The id of an inbound-sink plugin (`inbound-email`). */
  sink: string;
  recipients: string[];
  /** `link` (default): a short-lived URL of the PDF; `attach`: the PDF itself. */
  document: 'link' | 'attach';
}

export interface Mailbox {
  name: string;
  description: string | null;
  numbers: MailboxRule[];
  sinks: MailboxSink[];
  created_at: string;
  updated_at: string;
}

const toMailbox = (row: Selectable<MailboxTable>): Mailbox => ({
  name: row.name,
  description: row.description,
  numbers: JSON.parse(row.numbers) as MailboxRule[],
  sinks: row.sinks ? (JSON.parse(row.sinks) as MailboxSink[]) : [],
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** Named mailboxes and the called numbers routed to each. */
export class MailboxStore {
  constructor(private readonly db: Kysely<FaxTables>) {}

  async list(): Promise<Mailbox[]> {
    return (await this.db.selectFrom('mailboxes').selectAll().orderBy('name').execute()).map(toMailbox);
  }

  async get(name: string): Promise<Mailbox | undefined> {
    const row = await this.db.selectFrom('mailboxes').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toMailbox(row);
  }

  /** False when a mailbox of that name exists. */
  async create(name: string, description: string | null, numbers: MailboxRule[], sinks: MailboxSink[] = []): Promise<boolean> {
    const now = new Date().toISOString();
    const r = await this.db
      .insertInto('mailboxes')
      .values({ name, description, numbers: JSON.stringify(numbers), sinks: JSON.stringify(sinks), created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** False when there is no such mailbox; `sinks` undefined keeps the mailbox's sinks. */
  async update(name: string, description: string | null, numbers: MailboxRule[], sinks?: MailboxSink[]): Promise<boolean> {
    const r = await this.db
      .updateTable('mailboxes')
      .set({ description, numbers: JSON.stringify(numbers), ...(sinks ? { sinks: JSON.stringify(sinks) } : {}), updated_at: new Date().toISOString() })
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async remove(name: string): Promise<boolean> {
    const r = await this.db.deleteFrom('mailboxes').where('name', '=', name).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }
}

/**
 * The mailbox a called number goes to: an exact rule first, then the longest prefix, else
 * `fallback`. A fax with no called number goes to `fallback`.
 */
export function mailboxFor(mailboxes: readonly Mailbox[], calledNumber: string | null | undefined, fallback: string): string {
  if (!calledNumber) return fallback;
  let best: { name: string; length: number } | undefined;
  for (const mailbox of mailboxes) {
    for (const rule of mailbox.numbers) {
      if (rule.match === 'exact' && rule.number === calledNumber) return mailbox.name;
      if (rule.match === 'prefix' && calledNumber.startsWith(rule.number) && rule.number.length > (best?.length ?? -1)) best = { name: mailbox.name, length: rule.number.length };
    }
  }
  return best?.name ?? fallback;
}

/** The rule of `candidate` that another mailbox already holds the same way, if any. */
export function ruleTakenBy(mailboxes: readonly Mailbox[], name: string, candidate: readonly MailboxRule[]): { rule: MailboxRule; mailbox: string } | undefined {
  for (const mailbox of mailboxes) {
    if (mailbox.name === name) continue;
    for (const rule of candidate) if (mailbox.numbers.some((r) => r.match === rule.match && r.number === rule.number)) return { rule, mailbox: mailbox.name };
  }
  return undefined;
}
