import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { FaxTables, FaxWebhookSubscriptionTable } from '../fax-tables.js';
import type { FaxEventType } from './fax-events.js';
import { SecretSeal } from '../../../platform/secrets/secret-seal.js';

export type SubscriptionRow = Selectable<FaxWebhookSubscriptionTable>;

export interface Subscription {
  id: string;
  owner: string;
  scopes: string[];
  url: string;
  events: FaxEventType[];
  secret: string;
  description: string | null;
  created_at: string;
}

/**
 * Subscriptions to status events, each owned by the key that made it; signing secrets sealed
 * with SECRETS_KEY. Every event and delivery asks for them: with one process (SQLite) they are
 * read from a copy of the table, dropped by each create and delete once it has committed, so no
 * event after a write sees the table before it. Shared (PostgreSQL, several instances, each
 * writing) every question reads the table.
 */
export class SubscriptionStore {
  private copy: Promise<Subscription[]> | undefined;

  constructor(
    private readonly db: Kysely<FaxTables>,
    private readonly shared = false,
    private readonly seal: SecretSeal = new SecretSeal(undefined),
  ) {}

  private readonly parse = (row: SubscriptionRow): Subscription => ({
    ...row,
    scopes: JSON.parse(row.scopes) as string[],
    events: JSON.parse(row.events) as FaxEventType[],
    secret: this.seal.open(row.secret),
  });

  /** Seals the secrets stored plain (or under SECRETS_KEY_PREVIOUS); throws when one cannot be opened. */
  async resealStored(): Promise<void> {
    for (const row of await this.db.selectFrom('fax_webhook_subscriptions').select(['id', 'secret']).execute()) {
      const secret = this.seal.reseal(row.secret);
      if (secret !== undefined) await this.db.updateTable('fax_webhook_subscriptions').set({ secret }).where('id', '=', row.id).where('secret', '=', row.secret).execute();
    }
    this.copy = undefined;
  }

  async create(input: { owner: string; scopes: readonly string[]; url: string; events: FaxEventType[]; description: string | null }): Promise<Subscription> {
    const row: SubscriptionRow = {
      id: randomUUID(),
      owner: input.owner,
      scopes: JSON.stringify(input.scopes),
      url: input.url,
      events: JSON.stringify(input.events),
      // whsec_ marks it as a webhook signing secret wherever it is pasted
      secret: `whsec_${randomBytes(24).toString('base64url')}`,
      description: input.description,
      created_at: new Date().toISOString(),
    };
    await this.db.insertInto('fax_webhook_subscriptions').values({ ...row, secret: this.seal.seal(row.secret) }).execute();
    this.copy = undefined;
    return this.parse(row);
  }

  async ofOwner(owner: string): Promise<Subscription[]> {
    return (await this.db.selectFrom('fax_webhook_subscriptions').selectAll().where('owner', '=', owner).orderBy('created_at').orderBy('id').execute()).map(this.parse);
  }

  async get(id: string): Promise<Subscription | undefined> {
    if (!this.shared) return (await this.all()).find((s) => s.id === id);
    const row = await this.db.selectFrom('fax_webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.parse(row);
  }

  /** Every subscription to `type` (a handful per key: read whole, filtered here). */
  async to(type: FaxEventType): Promise<Subscription[]> {
    if (!this.shared) return (await this.all()).filter((s) => s.events.includes(type));
    return (await this.db.selectFrom('fax_webhook_subscriptions').selectAll().where('events', 'like', `%"${type}"%`).execute()).map(this.parse).filter((s) => s.events.includes(type));
  }

  async delete(id: string, owner: string): Promise<boolean> {
    const r = await this.db.deleteFrom('fax_webhook_subscriptions').where('id', '=', id).where('owner', '=', owner).executeTakeFirst();
    this.copy = undefined;
    return Number(r.numDeletedRows) === 1;
  }

  // A read under way when a write commits is not kept: the write dropped the promise it would fill.
  private all(): Promise<Subscription[]> {
    const copy = (this.copy ??= this.db.selectFrom('fax_webhook_subscriptions').selectAll().orderBy('created_at').orderBy('id').execute().then((rows) => rows.map(this.parse)));
    copy.catch(() => {
      if (this.copy === copy) this.copy = undefined;
    });
    return copy;
  }
}
