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

/** Subscriptions to status events, each owned by the key that made it; signing secrets sealed with SECRETS_KEY. */
export class SubscriptionStore {
  constructor(
    private readonly db: Kysely<FaxTables>,
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
    return this.parse(row);
  }

  async ofOwner(owner: string): Promise<Subscription[]> {
    return (await this.db.selectFrom('fax_webhook_subscriptions').selectAll().where('owner', '=', owner).orderBy('created_at').orderBy('id').execute()).map(this.parse);
  }

  async get(id: string): Promise<Subscription | undefined> {
    const row = await this.db.selectFrom('fax_webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.parse(row);
  }

  /** Every subscription to `type` (a handful per key: read whole, filtered here). */
  async to(type: FaxEventType): Promise<Subscription[]> {
    return (await this.db.selectFrom('fax_webhook_subscriptions').selectAll().where('events', 'like', `%"${type}"%`).execute()).map(this.parse).filter((s) => s.events.includes(type));
  }

  async delete(id: string, owner: string): Promise<boolean> {
    const r = await this.db.deleteFrom('fax_webhook_subscriptions').where('id', '=', id).where('owner', '=', owner).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }
}
