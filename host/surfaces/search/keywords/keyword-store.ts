import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../../core/config/atomic-file.js';
import { buildKeywords, type Keyword, type SourceText } from './keyword-builder.js';

/** The keyword settings in force; read from the registry once, re-read by `reloadSettings()`. */
export interface KeywordSettings {
  maxPerRepo: number;
  minFreq: number;
  boost: number;
  refreshHours: number;
}

/** The per-repository cache file, also the body of GET /api/keywords. */
export interface RepoKeywords {
  repo: string;
  generated_at: string;
  files: number;
  max_per_repo: number;
  min_freq: number;
  keywords: Keyword[];
}

export interface KeywordStoreOptions {
  dataDir: string;
  /** Reads the four KEYWORDS_* keys from the configuration registry. */
  readSettings: () => KeywordSettings;
  /** The files of a repository (the indexer's walk: .gitignore, size and binary rules). */
  sourceFiles: (repo: string) => AsyncIterable<SourceText> | Iterable<SourceText>;
  now?: () => Date;
  /** Told when a background refresh fails; the old keywords stay in use. */
  onError?: (repo: string, err: unknown) => void;
}

export const GLOBAL_KEYWORDS_FILE = 'discriminative_keywords.json';

/**
 * Discriminative keywords per repository, cached in DATA_DIR/out/keywords/repos/<repo>.json and
 * gathered in DATA_DIR/out/keywords/discriminative_keywords.json (repo → terms). Every write is
 * atomic; one build per repository runs at a time and concurrent callers share it.
 */
export class KeywordStore {
  private settingsSnapshot: KeywordSettings;
  private readonly memory = new Map<string, RepoKeywords>();
  private readonly building = new Map<string, Promise<RepoKeywords>>();
  private globalWrites: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: KeywordStoreOptions) {
    this.settingsSnapshot = options.readSettings();
  }

  get dir(): string {
    return path.join(this.options.dataDir, 'out', 'keywords');
  }

  /** The cached settings (config is read once; see `reloadSettings`). */
  settings(): KeywordSettings {
    return { ...this.settingsSnapshot };
  }

  /** Re-reads the KEYWORDS_* keys; caches built under other limits count as stale from now. */
  reloadSettings(): KeywordSettings {
    this.settingsSnapshot = this.options.readSettings();
    return this.settings();
  }

  /** The keywords of a repository, regenerated first when missing or older than the refresh window. */
  async get(repo: string): Promise<RepoKeywords> {
    const cached = await this.cached(repo);
    if (cached && !this.isStale(cached)) return cached;
    return this.rebuild(repo);
  }

  /** Regenerates now, whatever the refresh window says. */
  rebuild(repo: string): Promise<RepoKeywords> {
    const running = this.building.get(repo);
    if (running) return running;
    const run = this.build(repo).finally(() => this.building.delete(repo));
    this.building.set(repo, run);
    return run;
  }

  /**
   * Terms for ranking, without waiting on a build: whatever is cached now (possibly stale), and
   * a background refresh when it is missing or stale. Empty until a first build finished.
   */
  async termsForRanking(repo: string): Promise<Set<string>> {
    const cached = await this.cached(repo);
    if (!cached || this.isStale(cached)) {
      this.rebuild(repo).catch((err) => this.options.onError?.(repo, err));
    }
    return new Set((cached?.keywords ?? []).map((k) => k.term));
  }

  /**
   * Resolves once the builds running now (a background refresh a search started, say) have
   * written their files: the gateway waits for it when it stops, so nothing is written into
   * DATA_DIR after it has stopped.
   */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.building.values(), this.globalWrites]);
  }

  isStale(entry: RepoKeywords): boolean {
    const s = this.settingsSnapshot;
    if (entry.max_per_repo !== s.maxPerRepo || entry.min_freq !== s.minFreq) return true;
    // 0 hours: cached keywords never expire; only a rebuild regenerates them.
    if (s.refreshHours <= 0) return false;
    const age = this.now().getTime() - Date.parse(entry.generated_at);
    return !(age >= 0 && age < s.refreshHours * 3_600_000);
  }

  private async cached(repo: string): Promise<RepoKeywords | undefined> {
    const inMemory = this.memory.get(repo);
    if (inMemory) return inMemory;
    try {
      const parsed = JSON.parse(await fs.readFile(this.repoFile(repo), 'utf8')) as RepoKeywords;
      if (parsed?.repo === repo && Array.isArray(parsed.keywords) && typeof parsed.generated_at === 'string') {
        this.memory.set(repo, parsed);
        return parsed;
      }
    } catch {
      // missing or unreadable: rebuilt on demand
    }
    return undefined;
  }

  private async build(repo: string): Promise<RepoKeywords> {
    const s = this.settingsSnapshot;
    const result = await buildKeywords(this.options.sourceFiles(repo), { maxPerRepo: s.maxPerRepo, minFreq: s.minFreq });
    const entry: RepoKeywords = {
      repo,
      generated_at: this.now().toISOString(),
      files: result.files,
      max_per_repo: s.maxPerRepo,
      min_freq: s.minFreq,
      keywords: result.keywords,
    };
    await writeFileAtomic(this.repoFile(repo), JSON.stringify(entry, null, 2) + '\n', { private: true });
    await this.updateGlobal(repo, entry.keywords.map((k) => k.term));
    this.memory.set(repo, entry);
    return entry;
  }

  // Read-modify-write of the shared file, one at a time so two repositories never lose each other's entry.
  private updateGlobal(repo: string, terms: string[]): Promise<unknown> {
    const file = path.join(this.dir, GLOBAL_KEYWORDS_FILE);
    const run = this.globalWrites.then(async () => {
      let all: Record<string, string[]> = {};
      try {
        const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) all = parsed as Record<string, string[]>;
      } catch {
        // first write, or a broken file replaced by a good one
      }
      all[repo] = terms;
      await writeFileAtomic(file, JSON.stringify(all, null, 2) + '\n', { private: true });
    });
    this.globalWrites = run.catch(() => {});
    return run;
  }

  private repoFile(repo: string): string {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(repo) || repo === '..') throw new Error(`not a plain repository name: ${JSON.stringify(repo)}`);
    return path.join(this.dir, 'repos', `${repo}.json`);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
