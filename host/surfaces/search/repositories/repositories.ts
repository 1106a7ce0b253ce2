import path from 'node:path';
import type { SearchConfig } from '../search-settings.js';
import { isRepoName } from '../../../platform/ports/code-search.js';
import { searchErrors } from '../search-errors.js';
import { invalidInput } from '../../../platform/errors/platform-errors.js';

export interface Repository {
  name: string;
  /** Absolute directory of the repository. */
  dir: string;
}

/**
 * Repositories come from config (REPOS) only: a request names a repository, never a path.
 * With REPOS empty, "switchboard" is the gateway's own package root, so the tour works bare.
 */
export class Repositories {
  constructor(
    private readonly config: SearchConfig,
    private readonly packageRoot: string,
    private readonly cwd: string,
  ) {}

  all(): Repository[] {
    const configured = this.config.get('REPOS');
    const entries = Object.keys(configured).length ? Object.entries(configured) : [['switchboard', this.packageRoot] as const];
    return entries.map(([name, dir]) => ({ name, dir: path.resolve(this.cwd, dir) }));
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

