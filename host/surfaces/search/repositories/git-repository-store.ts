import type { Kysely } from 'kysely';
import type { GitRevision } from './git-remote.js';
import type { GitRepositoryTable } from '../search-tables.js';
import type { GitRepositoryInput } from './git-sources.js';
import { maskUrlCredentials } from '../../../../core/config/url-credentials.js';
import { SecretSeal } from '../../../platform/secrets/secret-seal.js';

/** A git repository as the API adds it (validated by GitRepositoryInput). */
export type GitRepositoryConfig = GitRepositoryInput;

/** The last fetch by any instance of the cluster: each selected revision and its commit. */
export interface GitFetchState {
  fetched_at: string | null;
  error: string | null;
  default_branch: string | null;
  revisions: GitRevision[];
}

export type GitRepositoryRow = GitRepositoryConfig & { state: GitFetchState; created_at: string };

export const NEVER_FETCHED: GitFetchState = { fetched_at: null, error: null, default_branch: null, revisions: [] };

/**
 * The git repositories added over the API, in the `git_repositories` table, so every instance
 * of a cluster serves the same list. Credentials (the `credential` column, a URL's userinfo) are
 * never answered, and with SECRETS_KEY they are stored sealed.
 */
export class GitRepositoryStore {
  constructor(
    private readonly db: Kysely<{ git_repositories: GitRepositoryTable }>,
    private readonly seal: SecretSeal = new SecretSeal(undefined),
  ) {}

  /** Every repository, in the order they were added. */
  async list(): Promise<GitRepositoryRow[]> {
    const rows = await this.db.selectFrom('git_repositories').selectAll().orderBy('created_at').orderBy('name').execute();
    return rows.map((row) => this.rowOf(row));
  }

  /** Seals the credentials stored plain (or under SECRETS_KEY_PREVIOUS); throws when one cannot be opened. */
  async resealStored(): Promise<void> {
    const rows = await this.db.selectFrom('git_repositories').select(['name', 'url', 'credential']).execute();
    for (const row of rows) {
      const url = this.resealUrl(row.url);
      const credential = row.credential === null ? undefined : this.seal.reseal(row.credential);
      if (url === undefined && credential === undefined) continue;
      await this.db
        .updateTable('git_repositories')
        .set({ ...(url !== undefined ? { url } : {}), ...(credential !== undefined ? { credential } : {}) })
        .where('name', '=', row.name)
        .execute();
    }
  }

  /** A URL is sealed only when it holds credentials (`https://user:token@host/`). */
  private storedUrl(url: string): string {
    return maskUrlCredentials(url) === url ? url : this.seal.seal(url);
  }

  private resealUrl(stored: string): string | undefined {
    if (SecretSeal.isSealed(stored)) return this.seal.reseal(stored);
    const url = this.storedUrl(stored);
    return url !== stored ? url : undefined;
  }

  private rowOf(row: GitRepositoryTable): GitRepositoryRow {
    return {
      name: row.name,
      url: this.seal.open(row.url),
      revs: JSON.parse(row.revs) as string[],
      ...(row.credential_env !== null ? { credential_env: row.credential_env } : {}),
      ...(row.credential !== null ? { credential: this.seal.open(row.credential) } : {}),
      state: { ...NEVER_FETCHED, ...(JSON.parse(row.state) as Partial<GitFetchState>) },
      created_at: row.created_at,
    };
  }

  /** Adds the repository; false when the name is taken (by another instance too). */
  async insert(entry: GitRepositoryConfig, state: GitFetchState = NEVER_FETCHED): Promise<boolean> {
    const inserted = await this.db
      .insertInto('git_repositories')
      .values({
        name: entry.name,
        url: this.storedUrl(entry.url),
        revs: JSON.stringify(entry.revs),
        credential_env: entry.credential_env ?? null,
        credential: entry.credential !== undefined ? this.seal.seal(entry.credential) : null,
        state: JSON.stringify(state),
        created_at: new Date().toISOString(),
      })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Records a fetch's outcome; nothing when the repository was removed meanwhile. */
  async saveState(name: string, state: GitFetchState): Promise<void> {
    await this.db.updateTable('git_repositories').set({ state: JSON.stringify(state) }).where('name', '=', name).execute();
  }

  /** True when it was there. */
  async remove(name: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('git_repositories').where('name', '=', name).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }
}
