import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './gateway.js';

/** The golden sets of test/fixtures/golden/, each with the questions it holds. */
export const GOLDEN_DIR = path.join(ROOT, 'test/fixtures/golden');

export interface GoldenQuestion {
  q: string;
  repo?: string;
  expect_paths: string[];
}

export function goldenSets(): Array<{ file: string; golden: GoldenQuestion[] }> {
  return readdirSync(GOLDEN_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, golden: JSON.parse(readFileSync(path.join(GOLDEN_DIR, file), 'utf8')) as GoldenQuestion[] }));
}

/**
 * Where a golden set's repository is: `switchboard` is this package, any other name a package
 * installed in node_modules (pino as npm ci installs it). A set about another tree adds it here.
 */
export function goldenRepoDir(repo: string): string {
  if (repo === 'switchboard') return ROOT;
  const installed = path.join(ROOT, 'node_modules', repo);
  if (existsSync(installed)) return installed;
  throw new Error(`golden set repository "${repo}" has no directory: add it to goldenRepoDir() in test/support/golden-repos.ts`);
}

/** REPOS for a gateway that answers every golden set: each repository the sets name, by name. */
export function goldenRepos(sets = goldenSets()): Record<string, string> {
  const names = [...new Set(sets.flatMap((s) => s.golden.map((q) => q.repo ?? 'switchboard')))].sort();
  return Object.fromEntries(names.map((r) => [r, goldenRepoDir(r)]));
}
