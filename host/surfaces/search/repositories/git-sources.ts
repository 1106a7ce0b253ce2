import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { REPO_NAME } from '../../../platform/ports/code-search.js';
import { assertRemoteAllowed, checkRemoteUrl, GitMirror, GitRemoteError, type GitRevision } from './git-remote.js';

/** A git repository as the API adds it and DATA_DIR/git-repositories.json keeps it. */
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

/** What a fetch found: each selected revision, its commit and the commit last indexed. */
export interface GitRepositoryState {
  fetched_at: string | null;
  error: string | null;
  default_branch: string | null;
  revisions: Array<GitRevision & { indexed_commit: string | null }>;
}

type Stored = GitRepositoryInput & { state: GitRepositoryState };

/** Indexes one exported revision; resolves when the run has ended. */
export type IndexRevision = (repo: string, revision: { name: string; dir: string; isDefault: boolean }) => Promise<void>;

/**
 * Git repositories added over the API: kept in DATA_DIR/git-repositories.json (mode 0600: it may
 * hold credentials), mirrored under DATA_DIR/git/<name>.git, each selected revision exported to
 * DATA_DIR/git-trees/<name>/<rev> and indexed when its commit moved.
 */
export class GitSources {
  private readonly file: string;
  private entries: Map<string, Stored>;
  private readonly syncing = new Map<string, Promise<GitRepositoryState>>();

  constructor(
    private readonly deps: { dataDir: string; timeoutMs: () => number; allowHosts: () => readonly string[]; env: Readonly<Record<string, string | undefined>>; index: IndexRevision },
  ) {
    this.file = path.join(deps.dataDir, 'git-repositories.json');
    const saved = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Stored[]) : [];
    this.entries = new Map(saved.map((e) => [e.name, e]));
  }

  list(): Stored[] {
    return [...this.entries.values()];
  }

  get(name: string): Stored | undefined {
    return this.entries.get(name);
  }

  /** The tree the repository's default branch is exported to: what it is searched and indexed as. */
  defaultTree(name: string): string {
    return this.treeDir(name, this.entries.get(name)?.state.default_branch ?? 'HEAD');
  }

  /** Validates and keeps a new repository (its first fetch is the caller's); GitRemoteError for a refused remote. */
  async add(input: GitRepositoryInput): Promise<Stored> {
    checkRemoteUrl(input.url);
    await assertRemoteAllowed(input.url, this.deps.allowHosts());
    const entry: Stored = { ...input, state: { fetched_at: null, error: null, default_branch: null, revisions: [] } };
    this.entries.set(input.name, entry);
    this.save();
    return entry;
  }

  /** Forgets the repository and removes its mirror and exported trees. */
  async remove(name: string): Promise<boolean> {
    if (!this.entries.has(name)) return false;
    await this.syncing.get(name)?.catch(() => undefined);
    this.entries.delete(name);
    this.save();
    rmSync(this.mirrorDir(name), { recursive: true, force: true });
    rmSync(path.join(this.deps.dataDir, 'git-trees', name), { recursive: true, force: true });
    return true;
  }

  /** Fetches and re-indexes the revisions whose commit moved; concurrent calls share one sync. */
  sync(name: string): Promise<GitRepositoryState> {
    const running = this.syncing.get(name);
    if (running) return running;
    const run = this.syncOnce(name).finally(() => this.syncing.delete(name));
    this.syncing.set(name, run);
    return run;
  }

  /** Every repository in turn (the schedule's task); a failure is recorded on its entry. */
  async syncAll(): Promise<void> {
    for (const name of [...this.entries.keys()]) await this.sync(name).catch(() => undefined);
  }

  private async syncOnce(name: string): Promise<GitRepositoryState> {
    const entry = this.entries.get(name);
    if (!entry) throw new GitRemoteError(`no git repository named "${name}"`);
    const mirror = this.mirrorOf(entry);
    try {
      await assertRemoteAllowed(entry.url, this.deps.allowHosts());
      await mirror.fetch();
      const defaultBranch = await mirror.defaultBranch();
      const previous = new Map(entry.state.revisions.map((r) => [r.name, r.indexed_commit]));
      const revisions: GitRepositoryState['revisions'] = [];
      // The default branch first: it is the repository's own index, what a search without rev: reads.
      const found = (await mirror.revisions()).sort((a, b) => Number(b.name === defaultBranch) - Number(a.name === defaultBranch));
      entry.state = { ...entry.state, default_branch: defaultBranch };
      for (const rev of found) {
        let indexed = previous.get(rev.name) ?? null;
        if (indexed !== rev.commit) {
          const dir = this.treeDir(name, rev.name);
          await mirror.export(rev.commit, dir);
          await this.deps.index(name, { name: rev.name, dir, isDefault: rev.name === defaultBranch });
          indexed = rev.commit;
        }
        revisions.push({ ...rev, indexed_commit: indexed });
      }
      entry.state = { fetched_at: new Date().toISOString(), error: null, default_branch: defaultBranch, revisions };
    } catch (err) {
      entry.state = { ...entry.state, error: (err as Error).message };
      if (this.entries.has(name)) this.save();
      throw err;
    }
    if (this.entries.has(name)) this.save();
    return entry.state;
  }

  private mirrorOf(entry: Stored): GitMirror {
    const credential = entry.credential ?? (entry.credential_env ? this.deps.env[entry.credential_env] : undefined);
    return new GitMirror({ dir: this.mirrorDir(entry.name), source: { url: entry.url, revs: entry.revs, ...(credential ? { credential } : {}) }, timeoutMs: this.deps.timeoutMs() });
  }

  private mirrorDir(name: string): string {
    return path.join(this.deps.dataDir, 'git', `${name}.git`);
  }

  private treeDir(name: string, rev: string): string {
    return path.join(this.deps.dataDir, 'git-trees', name, rev.replace(/[^A-Za-z0-9._-]/g, '_'));
  }

  private save(): void {
    mkdirSync(this.deps.dataDir, { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.list(), null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
