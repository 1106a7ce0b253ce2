import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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
 * Where each golden set's repository is: `switchboard` is this package; the foreign codebases are
 * fetched at their pinned versions into a cache outside the repository by
 * test/fixtures/golden/fetch-corpora.mjs (it fails naming what is missing when it cannot); any
 * other name is a package installed in node_modules (pino as npm ci installs it).
 */
export async function goldenRepos(sets = goldenSets()): Promise<Record<string, string>> {
  const { CORPORA, corpus } = (await import(pathToFileURL(path.join(GOLDEN_DIR, 'fetch-corpora.mjs')).href)) as {
    CORPORA: Record<string, unknown>;
    corpus: (name: string) => string;
  };
  const names = [...new Set(sets.flatMap((s) => s.golden.map((q) => q.repo ?? 'switchboard')))].sort();
  return Object.fromEntries(
    names.map((repo) => {
      if (repo === 'switchboard') return [repo, ROOT];
      if (repo in CORPORA) return [repo, corpus(repo)];
      const installed = path.join(ROOT, 'node_modules', repo);
      if (existsSync(installed)) return [repo, installed];
      throw new Error(`golden set repository "${repo}" has no directory: add it to CORPORA in test/fixtures/golden/fetch-corpora.mjs`);
    }),
  );
}
