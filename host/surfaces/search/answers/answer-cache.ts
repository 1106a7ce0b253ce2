import type { Citation } from './answer-prompt.js';

/** What a cache hit hands back (the run id and trace are the new run's own). */
export interface CachedAnswer {
  answer: string;
  citations: Citation[];
  mode: 'graph' | 'simple' | 'extractive';
  model: string | null;
}

interface Entry {
  /** repo, index generation, model and top_k: a hit needs all of them equal. */
  scope: string;
  question: string;
  vector?: number[];
  value: CachedAnswer;
  expires: number;
}

export interface AnswerCacheSettings {
  size: number;
  ttlMs: number;
  threshold: number;
}

/** The normal form questions are compared in: whitespace collapsed, case folded. */
export function normalizeQuestion(q: string): string {
  return q.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * In-memory semantic cache of answers. The scope includes the index generation (the repository's
 * latest indexing run and its state), so a new run invalidates every answer over the old index.
 * Exact questions hit without embeddings; with a question vector, the nearest entry at cosine ≥
 * threshold hits too. Fingerprint vectors are kept per question so asking a close question twice
 * needs no embedding call the second time.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly vectors = new Map<string, number[]>();

  constructor(private readonly settings: () => AnswerCacheSettings) {}

  exact(scope: string, question: string, now = Date.now()): CachedAnswer | undefined {
    const key = `${scope}\n${normalizeQuestion(question)}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    // Refresh its place in the LRU order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The closest entry in scope at or above the threshold, with its similarity. */
  nearest(scope: string, vector: number[], now = Date.now()): { value: CachedAnswer; similarity: number; question: string } | undefined {
    const { threshold } = this.settings();
    let best: { value: CachedAnswer; similarity: number; question: string } | undefined;
    for (const entry of this.entries.values()) {
      if (entry.scope !== scope || !entry.vector || entry.expires <= now) continue;
      const similarity = cosine(vector, entry.vector);
      if (similarity >= threshold && (!best || similarity > best.similarity)) best = { value: entry.value, similarity, question: entry.question };
    }
    return best;
  }

  /** A remembered fingerprint vector of a question (under the embedding model that made it). */
  vectorOf(model: string, question: string): number[] | undefined {
    return this.vectors.get(`${model}\n${normalizeQuestion(question)}`);
  }

  rememberVector(model: string, question: string, vector: number[]): void {
    const { size } = this.settings();
    if (size <= 0) return;
    const key = `${model}\n${normalizeQuestion(question)}`;
    this.vectors.delete(key);
    this.vectors.set(key, vector);
    while (this.vectors.size > size) this.vectors.delete(this.vectors.keys().next().value!);
  }

  put(scope: string, question: string, value: CachedAnswer, vector?: number[], now = Date.now()): void {
    const { size, ttlMs } = this.settings();
    if (size <= 0) return;
    const key = `${scope}\n${normalizeQuestion(question)}`;
    this.entries.delete(key);
    this.entries.set(key, { scope, question, value, expires: now + ttlMs, ...(vector ? { vector } : {}) });
    while (this.entries.size > size) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
