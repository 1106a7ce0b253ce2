import type { GoldenQuestion } from './golden-set.js';
import { selectQuestions } from './eval-runner.js';
import type { RepositoryResolver } from '../repositories/repo-query.js';
import { invalidInput } from '../../../platform/errors/platform-errors.js';

/**
 * The repositories a golden set runs against, checked before the first question runs so a typo
 * fails fast: the default repository, the `repo` filter if any, and every repository a selected
 * question names, each readied (`prepare`, e.g. keywords built) so every question ranks alike.
 */
export async function goldenScope(
  golden: readonly GoldenQuestion[],
  repo: string | undefined,
  deps: { repositories: RepositoryResolver; prepare?: ((repo: string) => Promise<void>) | undefined },
): Promise<{ defaultRepo: string; only: string | undefined; repos: string[]; questions: number }> {
  const defaultRepo = deps.repositories.resolve(undefined).name;
  const only = repo === undefined ? undefined : deps.repositories.resolve(repo).name;
  const selected = selectQuestions(golden, defaultRepo, only);
  if (!selected.length) throw invalidInput('repo', `no question of the golden set is about "${only}"`);
  const repos = new Set(selected.map((g) => g.repo));
  for (const name of repos) deps.repositories.resolve(name);
  for (const name of repos) await deps.prepare?.(name);
  return { defaultRepo, only, repos: [...repos], questions: selected.length };
}
