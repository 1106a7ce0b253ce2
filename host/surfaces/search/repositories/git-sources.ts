import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { REPO_NAME } from '../../../platform/ports/code-search.js';
import { assertRemoteAllowed, checkRemoteUrl, GitMirror, GitRemoteError, type GitRevision } from './git-remote.js';
import { NEVER_FETCHED, type GitFetchState, type GitRepositoryConfig, type GitRepositoryRow, type GitRepositoryStore } from './git-repository-store.js';

/** A git repository as the API adds it and the `git_repositories` table keeps it. */
export const GitRepositoryInput = z
  .object({
    name: z.string().regex(REPO_NAME, 'repository names are letters, digits, ".", "_", "-"').refine((n) => !n.includes('..'), 'repository names cannot contain ".."'),
    url: z.string().min(1).max(2000).describe('https://, ssh:// or user@host:path, git://, file:// or an absolute path'),
    revs: z.array(z.string().regex(/^[A-Za-z0-9._\/*?-]{1,200}$/, 'a branch or tag name or glob')).max(100).default([]).describe('Branches and tags to index besides the default branch: names or globs (`*` within a segment, `**` across)'),
    credential_env: z.string().regex(/^[A-Z_][A-Z0-9_]{0,100}$/).optional().describe('Environment variable holding the credential (`user:token` for basic auth, else a bearer token)'),
    credential: z.string().min(1).max(4000).optional().describe('The credential itself, kept as a secret (never returned)'),
  })
  .strict();
export type GitRepositoryInput = z.infer<typeof GitRepositoryInput>;

/** What a fetch found (the last fetch by any instance), each revision with the commit this instance indexed. */
export interface GitRepositoryState {
  fetched_at: string | null;
  error: string | null;
  default_branch: string | null;
  revisions: Array<GitRevision & { indexed_commit: string | null }>;
}

type Stored = GitRepositoryConfig & { state: GitRepositoryState };

/** What this instance exported and indexed of a repository: kept beside its mirror, DATA_DIR/git/<name>.json. */
interface LocalState {
  default_branch: string | null;
  /** Revision name to the commit indexed here. */
  indexed: Record<string, string>;
  /** The shared state (fetchKey) this instance last synced against: a different one means fetch again. */
  seen: string | null;
}

/** Indexes one exported revision; resolves when the run has ended. */
export type IndexRevision = (repo: string, revision: { name: string; dir: string; isDefault: boolean }) => Promise<void>;

/** The legacy list (before the table), imported once at start and renamed aside. */
const LEGACY_FILE = 'git-repositories.json';

/**
 * Git repositories added over the API: the list in the `git_repositories` table (shared by a
 * cluster), each mirrored by every instance under DATA_DIR/git/<name>.git, each selected revision
 * exported to DATA_DIR/git-trees/<name>/<rev> and indexed when its commit moved. `reconcile`
 * brings this instance's mirrors to the table: clones what another instance added, fetches what
 * another fetched, drops what another removed.
 */
export class GitSources {
  private entries = new Map<string, GitRepositoryRow>();
  private readonly local = new Map<string, LocalState>();
  private readonly syncing = new Map<string, Promise<GitRepositoryState>>();

  constructor(
    private readonly deps: {
      dataDir: string;
      store: GitRepositoryStore;
      timeoutMs: () => number;
      allowHosts: () => readonly string[];
      env: Readonly<Record<string, string | undefined>>;
      index: IndexRevision;
      warn: (message: string, details: Record<string, unknown>) => void;
    },
  ) {}

  /** At start: imports DATA_DIR/git-repositories.json once (renamed aside), then reads the table. */
  async load(): Promise<void> {
    await this.importLegacyFile();
    await this.deps.store.resealStored();
    await this.refresh();
  }

  /** Reads the table again (another instance may have added, fetched or removed one). */
  async refresh(): Promise<void> {
    this.entries = new Map((await this.deps.store.list()).map((row) => [row.name, row]));
  }

  list(): Stored[] {
    return [...this.entries.keys()].map((name) => this.get(name)!);
  }

  get(name: string): Stored | undefined {
    const row = this.entries.get(name);
    if (!row) return undefined;
    const local = this.localOf(name);
    const { state, created_at: _created, ...config } = row;
    return {
      ...config,
      state: {
        ...state,
        default_branch: local.default_branch ?? state.default_branch,
        revisions: state.revisions.map((r) => ({ ...r, indexed_commit: local.indexed[r.name] ?? null })),
      },
    };
  }

  /** The tree the repository's default branch is exported to: what it is searched and indexed as. */
  defaultTree(name: string): string {
    return this.treeDir(name, this.localOf(name).default_branch ?? this.entries.get(name)?.state.default_branch ?? 'HEAD');
  }

  /** The tree a revision of the repository is exported to. */
  treeDir(name: string, rev: string): string {
    return path.join(this.deps.dataDir, 'git-trees', name, rev.replace(/[^A-Za-z0-9._-]/g, '_'));
  }

  /**
   * Validates and keeps a new repository (its first fetch is the caller's): undefined when the
   * name is taken in the table (by another instance too); GitRemoteError for a refused remote.
   */
  async add(input: GitRepositoryInput): Promise<Stored | undefined> {
    checkRemoteUrl(input.url);
    await assertRemoteAllowed(input.url, this.deps.allowHosts());
    if (!(await this.deps.store.insert(input))) return undefined;
    this.entries.set(input.name, { ...input, state: NEVER_FETCHED, created_at: new Date().toISOString() });
    return this.get(input.name);
  }

  /** Forgets the repository (for the whole cluster) and removes this instance's mirror and trees. */
  async remove(name: string): Promise<boolean> {
    const removed = await this.deps.store.remove(name);
    // A sync started from now on finds no entry; one under way ends before its files go.
    this.entries.delete(name);
    await this.syncing.get(name)?.catch(() => undefined);
    this.removeLocal(name);
    return removed;
  }

  /** Fetches and re-indexes the revisions whose commit moved; concurrent calls share one sync. */
  sync(name: string): Promise<GitRepositoryState> {
    const running = this.syncing.get(name);
    if (running) return running;
    const run = this.syncOnce(name).finally(() => this.syncing.delete(name));
    this.syncing.set(name, run);
    return run;
  }

  /** Every repository in turn (the schedule's task, on one instance of a cluster at a time); a failure is recorded on its entry. */
  async syncAll(): Promise<void> {
    await this.refresh();
    for (const name of [...this.entries.keys()]) await this.sync(name).catch(() => undefined);
  }

  /**
   * Brings this instance to the table: a repository never synced here, or whose shared state
   * moved since (another instance fetched new commits), is synced; one gone from the table loses
   * its mirror and trees. A failed sync is not retried until the shared state moves again.
   */
  async reconcile(): Promise<void> {
    await this.refresh();
    for (const [name, row] of this.entries) {
      const local = this.readLocal(name);
      if (local && local.seen === fetchKey(row.state)) continue;
      await this.sync(name).catch((err) => this.deps.warn('git repository sync failed', { repo: name, err: (err as Error).message }));
    }
    for (const name of this.localNames()) {
      if (!this.entries.has(name) && !this.syncing.has(name)) this.removeLocal(name);
    }
  }

  private async syncOnce(name: string): Promise<GitRepositoryState> {
    const entry = this.entries.get(name);
    if (!entry) throw new GitRemoteError(`no git repository named "${name}"`);
    const local = this.localOf(name);
    const mirror = this.mirrorOf(entry);
    let state: GitFetchState;
    try {
      await assertRemoteAllowed(entry.url, this.deps.allowHosts());
      await mirror.fetch();
      const defaultBranch = await mirror.defaultBranch();
      // The default branch first: it is the repository's own index, what a search without rev: reads.
      const found = (await mirror.revisions()).sort((a, b) => Number(b.name === defaultBranch) - Number(a.name === defaultBranch));
      local.default_branch = defaultBranch;
      const indexed: Record<string, string> = {};
      for (const rev of found) {
        if (local.indexed[rev.name] !== rev.commit) {
          const dir = this.treeDir(name, rev.name);
          await mirror.export(rev.commit, dir);
          await this.deps.index(name, { name: rev.name, dir, isDefault: rev.name === defaultBranch });
          local.indexed[rev.name] = rev.commit;
        }
        indexed[rev.name] = rev.commit;
      }
      local.indexed = indexed;
      state = { fetched_at: new Date().toISOString(), error: null, default_branch: defaultBranch, revisions: found };
    } catch (err) {
      state = { ...entry.state, error: (err as Error).message };
      await this.record(name, entry, local, state);
      throw err;
    }
    await this.record(name, entry, local, state);
    return this.get(name)?.state ?? { ...state, revisions: state.revisions.map((r) => ({ ...r, indexed_commit: local.indexed[r.name] ?? null })) };
  }

  /** The shared state for the cluster, what this instance indexed beside its mirror. */
  private async record(name: string, entry: GitRepositoryRow, local: LocalState, state: GitFetchState): Promise<void> {
    local.seen = fetchKey(state);
    if (!this.entries.has(name)) return; // removed meanwhile
    this.entries.set(name, { ...entry, state });
    this.writeLocal(name, local);
    await this.deps.store.saveState(name, state);
  }

  private mirrorOf(entry: GitRepositoryConfig): GitMirror {
    const credential = entry.credential ?? (entry.credential_env ? this.deps.env[entry.credential_env] : undefined);
    return new GitMirror({ dir: this.mirrorDir(entry.name), source: { url: entry.url, revs: entry.revs, ...(credential ? { credential } : {}) }, timeoutMs: this.deps.timeoutMs() });
  }

  private mirrorDir(name: string): string {
    return path.join(this.deps.dataDir, 'git', `${name}.git`);
  }

  private localFile(name: string): string {
    return path.join(this.deps.dataDir, 'git', `${name}.json`);
  }

  private localOf(name: string): LocalState {
    let local = this.local.get(name);
    if (!local) {
      local = this.readLocal(name) ?? { default_branch: null, indexed: {}, seen: null };
      this.local.set(name, local);
    }
    return local;
  }

  /** What this instance synced of the repository, or undefined when it never did. */
  private readLocal(name: string): LocalState | undefined {
    const cached = this.local.get(name);
    if (cached) return cached.seen === null ? undefined : cached;
    try {
      const read = JSON.parse(readFileSync(this.localFile(name), 'utf8')) as LocalState;
      this.local.set(name, read);
      return read;
    } catch {
      return undefined; // never synced here (or unreadable: synced again)
    }
  }

  private writeLocal(name: string, local: LocalState): void {
    const file = this.localFile(name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify(local));
    renameSync(`${file}.tmp`, file);
  }

  /** Repositories with a mirror or a local state here. */
  private localNames(): string[] {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(this.deps.dataDir, 'git'));
    } catch {
      return [];
    }
    return [...new Set(names.filter((n) => n.endsWith('.git') || n.endsWith('.json')).map((n) => n.replace(/\.(git|json)$/, '')))];
  }

  private removeLocal(name: string): void {
    this.local.delete(name);
    rmSync(this.mirrorDir(name), { recursive: true, force: true });
    rmSync(this.localFile(name), { force: true });
    rmSync(path.join(this.deps.dataDir, 'git-trees', name), { recursive: true, force: true });
  }

  /** The list as DATA_DIR/git-repositories.json kept it (mode 0600): into the table, then renamed aside. */
  private async importLegacyFile(): Promise<void> {
    const file = path.join(this.deps.dataDir, LEGACY_FILE);
    if (!existsSync(file)) return;
    let saved: Array<GitRepositoryConfig & { state: GitRepositoryState }>;
    try {
      saved = JSON.parse(readFileSync(file, 'utf8'));
      if (!Array.isArray(saved)) throw new Error('not a JSON array');
    } catch (err) {
      this.deps.warn(`${LEGACY_FILE} is unreadable and was not imported`, { file, err: (err as Error).message });
      return;
    }
    for (const entry of saved) {
      const revisions = entry.state?.revisions ?? [];
      const state: GitFetchState = { ...NEVER_FETCHED, ...entry.state, revisions: revisions.map(({ name, kind, commit }) => ({ name, kind, commit })) };
      const config: GitRepositoryConfig = { name: entry.name, url: entry.url, revs: entry.revs ?? [], ...(entry.credential_env ? { credential_env: entry.credential_env } : {}), ...(entry.credential ? { credential: entry.credential } : {}) };
      if (!(await this.deps.store.insert(config, state))) {
        this.deps.warn(`a git repository of ${LEGACY_FILE} was not imported: the name is taken`, { repo: entry.name });
        continue;
      }
      // What this instance indexed stays indexed: no clone and index again after the upgrade.
      const indexed = Object.fromEntries(revisions.filter((r) => r.indexed_commit).map((r) => [r.name, r.indexed_commit!]));
      this.writeLocal(entry.name, { default_branch: state.default_branch, indexed, seen: fetchKey(state) });
    }
    // Renamed, not removed: it may hold credentials, and keeps its mode 0600.
    renameSync(file, `${file}.imported-${Date.now()}`);
  }
}

/** What identifies a fetch's outcome for the cluster: the default branch and each revision's commit. */
function fetchKey(state: GitFetchState): string {
  return JSON.stringify([state.default_branch, state.revisions.map((r) => [r.name, r.commit])]);
}
