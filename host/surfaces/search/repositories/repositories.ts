import path from 'node:path';
import type { SearchConfig } from '../search-settings.js';
import { isRepoName } from '../../../platform/ports/code-search.js';
import { searchErrors } from '../search-errors.js';
import { invalidInput } from '../../../platform/errors/platform-errors.js';
import { jobCorpus } from '../indexing/indexer/protocol.js';

export interface Repository {
  name: string;
  /** Absolute directory of the repository. */
  dir: string;
  /** A git repository: its default branch (what `dir` holds) and the exported tree of each other revision. */
  git?: { defaultBranch: string | null; trees: Record<string, string> };
}

/**
 * The retrieval collection and the tree of a revision (`rev:`): the repository's own for its
 * working tree or default branch, `<repo>--rev--<rev>` for another git revision (as indexed).
 */
export function revisionSource(repo: Repository, rev: string | undefined): { corpus: string; dir: string } {
  if (rev === undefined || rev === repo.git?.defaultBranch) return { corpus: repo.name, dir: repo.dir };
  return { corpus: jobCorpus({ repo: repo.name, rev }), dir: repo.git?.trees[rev] ?? repo.dir };
}

/**
 * Repositories come from config (REPOS) and the git repositories added over the API: a request
 * names a repository, never a path. With neither, "switchboard" is the gateway's own package
 * root, so the tour works bare.
 */
export class Repositories {
  constructor(
    private readonly config: SearchConfig,
    private readonly packageRoot: string,
    private readonly cwd: string,
    /** Git repositories, each at the exported tree of its default branch. */
    private readonly git: () => Repository[] = () => [],
  ) {}

  all(): Repository[] {
    const configured = this.config.get('REPOS');
    const git = this.git();
    const entries = Object.keys(configured).length || git.length ? Object.entries(configured) : [['switchboard', this.packageRoot] as const];
    return [...entries.map(([name, dir]) => ({ name, dir: path.resolve(this.cwd, dir) })), ...git];
  }

  /** Whether REPOS names this repository (a git repository cannot take its name). */
  configured(name: string): boolean {
    return Object.hasOwn(this.config.get('REPOS'), name);
  }

  /** The named repository (REPO when absent): 422 for a name that is not a plain name, 404 for an unknown one. */
  resolve(name: string | undefined): Repository {
    const wanted = name ?? this.config.get('REPO');
    if (!isRepoName(wanted)) throw invalidInput('repo', `"${wanted.slice(0, 100)}" is not a repository name (letters, digits, ".", "_", "-")`);
    const repo = this.all().find((r) => r.name === wanted);
    if (!repo) throw searchErrors.error('repository_not_found', { name: wanted, configured: this.all().map((r) => r.name) });
    return repo;
  }
}

