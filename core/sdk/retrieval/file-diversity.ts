import type { Scored } from './candidate.js';
import { RANKING_RULES } from './ranking-rules.js';

/** The n-th chunk (0-based) of a file in the ranking counts FILE_DECAY^n; at most MAX_PER_FILE are returned. */
export const FILE_DECAY = 0.5;
export const MAX_PER_FILE = 3;

/** One file does not crowd out the others: later chunks of a file decay and at most MAX_PER_FILE stay. */
export function diversifyByFile(ranked: Scored[], topK: number): Scored[] {
  if (!RANKING_RULES.fileDiversity) return ranked.slice(0, topK);
  const seen = new Map<string, number>();
  const decayed = ranked.map((r) => {
    const key = r.path ?? r.id;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return { r, n, score: r.score * FILE_DECAY ** n };
  });
  return decayed
    .filter((d) => d.n < MAX_PER_FILE)
    .sort((a, b) => b.score - a.score || a.r.rowid - b.r.rowid)
    .slice(0, topK)
    .map((d) => ({ ...d.r, score: d.score, signals: d.n ? { ...d.r.signals, file_decay: FILE_DECAY ** d.n } : d.r.signals }));
}
