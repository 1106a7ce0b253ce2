import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { sql } from '../db/kysely-runtime.js';
import type { Database } from '../db/schema.js';
import type { ConfigRegistry } from './registry.js';

const ROW = 1;

/**
 * The configuration file shared by the instances of a cluster (PostgreSQL only): the
 * `shared_config` row holds the file's text and a version. Every write through any instance
 * runs under the row's lock, starting from the cluster's copy and publishing its result with
 * the next version; every instance checks the version each CONFIG_SYNC_SECONDS and, when it
 * moved, writes that text to its own config file and reloads, so change listeners (schedules,
 * limits, targets) apply it live. The first instance to start seeds the row with its file.
 */
export class ClusterConfig {
  private version = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: { config: ConfigRegistry; db: Kysely<Database>; logger: Logger }) {}

  /** Seeds or pulls the shared copy, takes over the registry's writes and starts checking. */
  async start(): Promise<void> {
    const { db, config } = this.deps;
    await db
      .insertInto('shared_config')
      .values({ id: ROW, version: 1, body: await config.storedText(), updated_at: Date.now() })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    await this.check();
    config.coordinateWrites((write) => this.write(write));
    this.arm();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
  }

  /** Applies the cluster's copy when its version is newer than the one applied here. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      const row = await this.deps.db.selectFrom('shared_config').select(['version', 'body']).where('id', '=', ROW).executeTakeFirst();
      if (row && Number(row.version) > this.version) await this.apply(Number(row.version), row.body);
    })().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async apply(version: number, body: string): Promise<void> {
    const changed = await this.deps.config.replaceStored(body);
    this.version = version;
    if (changed.length) this.deps.logger.info({ version, changed }, 'configuration changed on another instance applied');
  }

  /** One write, under the row's lock: from the cluster's copy, published as the next version. */
  private write<T>(write: () => Promise<T>): Promise<T> {
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('shared_config').select(['version', 'body']).where('id', '=', ROW).forUpdate().executeTakeFirstOrThrow();
      if (Number(row.version) !== this.version) await this.apply(Number(row.version), row.body);
      const result = await write();
      const body = await this.deps.config.storedText();
      if (body !== row.body) {
        await trx
          .updateTable('shared_config')
          .set({ version: sql<number>`version + 1`, body, updated_at: Date.now() })
          .where('id', '=', ROW)
          .execute();
        this.version = Number(row.version) + 1;
      }
      return result;
    });
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.check()
        .catch((err) => this.deps.logger.warn({ err: (err as Error).message }, 'shared configuration check failed; next check retries'))
        .finally(() => this.arm());
    }, this.deps.config.get('CONFIG_SYNC_SECONDS') * 1000);
    // the check never keeps the process alive on its own
    this.timer.unref();
  }
}
