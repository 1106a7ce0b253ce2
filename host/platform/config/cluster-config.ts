import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { PluginConfigStore } from '../../../core/config/plugin-config-store.js';
import { writeFileAtomic } from '../../../core/config/atomic-file.js';
import { sql } from '../db/kysely-runtime.js';
import type { PlatformTables } from '../db/schema.js';
import type { ConfigRegistry } from './registry.js';
import { RecurringTask } from '../runtime/recurring-task.js';
import { SecretSeal } from '../secrets/secret-seal.js';

type Coordinator = <T>(write: () => Promise<T>) => Promise<T>;

/** A settings file the instances of a cluster share: one `shared_config` row. */
export interface SharedDocument {
  /** Its row id. */
  id: number;
  name: string;
  /** The file's text now ('' when there is none). */
  read(): Promise<string>;
  /** Writes the cluster's text to the file and applies it. */
  replace(text: string): Promise<void>;
  /** Hands every write of the file to `coordinator`. */
  coordinateWrites(coordinator: Coordinator): void;
}

/** The configuration file (ConfigRegistry): row 1. Its change listeners apply a new value live. */
export function configDocument(config: ConfigRegistry, logger: Logger): SharedDocument {
  return {
    id: 1,
    name: 'configuration',
    read: () => config.storedText(),
    async replace(text) {
      const changed = await config.replaceStored(text);
      if (changed.length) logger.info({ changed }, 'configuration changed on another instance applied');
    },
    coordinateWrites: (coordinator) => config.coordinateWrites(coordinator),
  };
}

/** The plugin settings file (PluginConfigStore): row 2. `applied` is told after a replace (the kernel rescans). */
export function pluginSettingsDocument(store: PluginConfigStore, applied: () => void): SharedDocument {
  const read = async () => {
    try {
      return await readFile(store.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw err;
    }
  };
  return {
    id: 2,
    name: 'plugin settings',
    read,
    async replace(text) {
      if ((await read()) === text) return;
      // Plugin secrets are in it: 0600, as the store writes it.
      await writeFileAtomic(store.file, text, { private: true });
      store.load();
      applied();
    },
    coordinateWrites: (coordinator) => store.coordinateWrites(coordinator),
  };
}

/**
 * The settings files shared by the instances of a cluster (PostgreSQL only): each is a
 * `shared_config` row holding the file's text and a version. Every write through any instance
 * runs under its row's lock, starting from the cluster's copy and publishing its result with the
 * next version; every instance checks the versions each CONFIG_SYNC_SECONDS and, when one moved,
 * writes that text to its own file and applies it, so a change is live everywhere without a
 * restart. The first instance to start seeds each row with its file. The rows hold plugin
 * secrets: with SECRETS_KEY each body is sealed (`seal`), and bodies stored plain are sealed at start.
 */
export class ClusterConfig {
  private readonly versions = new Map<number, number>();
  private checking: Promise<void> | undefined;
  private readonly loop: RecurringTask;
  private readonly seal: SecretSeal;

  constructor(private readonly deps: { config: ConfigRegistry; db: Kysely<PlatformTables>; logger: Logger; documents: SharedDocument[]; seal?: SecretSeal }) {
    this.seal = deps.seal ?? new SecretSeal(undefined);
    this.loop = new RecurringTask({
      cadence: { pauseMs: () => deps.config.get('CONFIG_SYNC_SECONDS') * 1000 },
      task: () => this.check(),
      onError: (err) => deps.logger.warn({ err: (err as Error).message }, 'shared configuration check failed; next check retries'),
    });
  }

  /** Seeds or pulls the shared copies, takes over the files' writes and starts checking. */
  async start(): Promise<void> {
    for (const doc of this.deps.documents) {
      await this.deps.db
        .insertInto('shared_config')
        .values({ id: doc.id, version: 1, body: this.seal.seal(await doc.read()), updated_at: Date.now() })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    }
    await this.resealStored();
    await this.check();
    for (const doc of this.deps.documents) doc.coordinateWrites((write) => this.write(doc, write));
    this.loop.start();
  }

  /** Seals bodies stored plain (or under SECRETS_KEY_PREVIOUS); the version stays: the text is the same. */
  private async resealStored(): Promise<void> {
    const rows = await this.deps.db.selectFrom('shared_config').select(['id', 'body']).execute();
    for (const row of rows) {
      const body = this.seal.reseal(row.body);
      if (body !== undefined) await this.deps.db.updateTable('shared_config').set({ body }).where('id', '=', row.id).where('body', '=', row.body).execute();
    }
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.checking;
  }

  /** Applies each cluster copy whose version is newer than the one applied here. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      const rows = await this.deps.db.selectFrom('shared_config').select(['id', 'version', 'body']).execute();
      for (const doc of this.deps.documents) {
        const row = rows.find((r) => Number(r.id) === doc.id);
        if (row && Number(row.version) > (this.versions.get(doc.id) ?? 0)) await this.apply(doc, Number(row.version), this.seal.open(row.body));
      }
    })().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async apply(doc: SharedDocument, version: number, body: string): Promise<void> {
    await doc.replace(body);
    this.versions.set(doc.id, version);
  }

  /** One write of `doc`, under its row's lock: from the cluster's copy, published as the next version. */
  private write<T>(doc: SharedDocument, write: () => Promise<T>): Promise<T> {
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('shared_config').select(['version', 'body']).where('id', '=', doc.id).forUpdate().executeTakeFirstOrThrow();
      const stored = this.seal.open(row.body);
      if (Number(row.version) !== this.versions.get(doc.id)) await this.apply(doc, Number(row.version), stored);
      const result = await write();
      const body = await doc.read();
      if (body !== stored) {
        await trx
          .updateTable('shared_config')
          .set({ version: sql<number>`version + 1`, body: this.seal.seal(body), updated_at: Date.now() })
          .where('id', '=', doc.id)
          .execute();
        this.versions.set(doc.id, Number(row.version) + 1);
      }
      return result;
    });
  }
}
