import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { SearchTables, IndexRunTable } from '../search-tables.js';
import type { Dialect } from '../../../platform/db/database.js';
import { interruptOrphansAtStart, interruptStale } from '../run-heartbeat.js';

export type IndexRun = Selectable<IndexRunTable>;
export type RunCounts = Pick<IndexRun, 'files_seen' | 'files_changed' | 'files_removed' | 'files_skipped' | 'chunks' | 'vectors'>;

export class RunAlreadyRunningError extends Error {
  constructor(readonly run: IndexRun) {
    super(`repository "${run.repo}" is already being indexed by run ${run.id} (started ${run.started_at})`);
    this.name = 'RunAlreadyRunningError';
  }
}

/** Indexing runs as durable rows, so a restart mid-run shows the run interrupted, never finished. */
export class IndexRunStore {
  constructor(
    private readonly db: Kysely<SearchTables>,
    private readonly dialect: Dialect,
  ) {}

  /** At start: interrupts the runs a gateway that stopped left running (see interruptOrphansAtStart). */
  recoverAtStart(now = Date.now()): Promise<number> {
    return interruptOrphansAtStart(this.db, this.dialect, 'index_runs', now);
  }

  /** Marks running rows of `repo` with a stale heartbeat interrupted. */
  sweepStale(repo: string, now = Date.now()): Promise<void> {
    return interruptStale(this.db, 'index_runs', 'repo', repo, now);
  }

  async create(repo: string, enrich: boolean): Promise<IndexRun> {
    await this.sweepStale(repo);
    const now = new Date();
    const row: IndexRun = {
      id: randomUUID(),
      repo,
      kind: 'index',
      state: 'running',
      enrich: enrich ? 1 : 0,
      files_seen: 0,
      files_changed: 0,
      files_removed: 0,
      files_skipped: 0,
      chunks: 0,
      vectors: 0,
      error: null,
      started_at: now.toISOString(),
      finished_at: null,
      heartbeat_at: now.getTime(),
    };
    try {
      await this.db.insertInto('index_runs').values(row).execute();
    } catch (err) {
      const running = await this.running(repo);
      if (running) throw new RunAlreadyRunningError(running);
      throw err;
    }
    return row;
  }

  async running(repo: string): Promise<IndexRun | undefined> {
    return this.db.selectFrom('index_runs').selectAll().where('repo', '=', repo).where('state', '=', 'running').executeTakeFirst();
  }

  async latest(repo: string): Promise<IndexRun | undefined> {
    await this.sweepStale(repo);
    return this.db.selectFrom('index_runs').selectAll().where('repo', '=', repo).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  async get(id: string): Promise<IndexRun | undefined> {
    return this.db.selectFrom('index_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async progress(id: string, counts: Partial<RunCounts> & { kind?: string }): Promise<void> {
    await this.db.updateTable('index_runs').set({ ...counts, heartbeat_at: Date.now() }).where('id', '=', id).where('state', '=', 'running').execute();
  }

  async heartbeat(id: string): Promise<void> {
    await this.db.updateTable('index_runs').set({ heartbeat_at: Date.now() }).where('id', '=', id).where('state', '=', 'running').execute();
  }

  /** Ends a running run; a run already ended (interrupted by a sweep, say) keeps its outcome. */
  async finish(id: string, state: 'finished' | 'failed' | 'interrupted', error: string | null, counts: Partial<RunCounts> = {}): Promise<void> {
    const now = Date.now();
    await this.db
      .updateTable('index_runs')
      .set({ ...counts, state, error, finished_at: new Date(now).toISOString(), heartbeat_at: now })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }
}
