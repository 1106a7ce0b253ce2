import type SQLite from 'better-sqlite3';
import type { RetrievalHit, RetrievalSearchOptions } from 'switchboard/sdk';
import { chunkHit, type ChunkColumns, cosineTopK, diversifyByFile, fuseRankings, queryTerms, rescoreSparse, sparseMatchTerms, stem, type Candidate } from 'switchboard/sdk/retrieval';
import type { VectorCache } from './vector-cache.js';

/** Candidates FTS5 hands to the re-scoring step when the caller gives no TOPK_SPARSE. */
const DEFAULT_SPARSE = 75;

// count(*) walks an index; the answer only changes when a commit lands (data_version moves).
const counts = new WeakMap<SQLite.Database, { version: number; total: number }>();
/** This connection wrote (data_version only moves for other connections' commits). */
export function invalidateCounts(db: SQLite.Database): void {
  counts.delete(db);
}

function documentCount(db: SQLite.Database): number {
  const version = db.pragma('data_version', { simple: true }) as number;
  const cached = counts.get(db);
  if (cached && cached.version === version) return cached.total;
  const total = (db.prepare('SELECT count(*) FROM docs').pluck().get() as number) || 1;
  counts.set(db, { version, total });
  return total;
}

/** The stemmed query terms worth asking FTS5 for, rarest first (the SDK's rule for common terms). */
function matchTerms(db: SQLite.Database, terms: string[]): string[] {
  const df = db.prepare('SELECT doc FROM docs_vocab WHERE term = ?').pluck();
  const counted = [...new Set(terms.map(stem))].map((t) => ({ t, df: (df.get(t) as number | undefined) ?? 0 }));
  return sparseMatchTerms(counted, documentCount(db)).map((x) => x.t);
}

/**
 * An FTS5 query that is only quoted terms joined by OR: terms are [a-z0-9]+ by construction,
 * so no caller text (quotes, parentheses, `*`, `:`, NEAR) ever reaches FTS5 as syntax.
 */
export function ftsQuery(terms: string[]): string {
  return terms.map((t) => `"${t.replace(/[^a-z0-9]/g, '')}"`).filter((t) => t !== '""').join(' OR ');
}

interface Row extends ChunkColumns {
  rowid: number;
  enrichment: string | null;
  rank: number;
}

const COLUMNS = 'd.rowid AS rowid, d.id, d.path, d.language, d.start_line, d.end_line, d.symbol, d.kind, d.text, d.metadata, d.enrichment';

function filterSql(options: RetrievalSearchOptions | undefined, params: unknown[]): string {
  const parts: string[] = [];
  const prefixes = options?.filters?.pathPrefixes?.filter(Boolean) ?? [];
  if (prefixes.length) {
    parts.push(`(${prefixes.map(() => "substr(d.path, 1, ?) = ?").join(' OR ')})`);
    for (const p of prefixes) params.push(p.length, p);
  }
  const languages = options?.filters?.languages?.filter(Boolean) ?? [];
  if (languages.length) {
    parts.push(`d.language IN (${languages.map(() => '?').join(', ')})`);
    params.push(...languages);
  }
  return parts.length ? ` AND ${parts.join(' AND ')}` : '';
}

/** Searches one collection inside a read transaction, so every statement sees the same snapshot. */
export function searchCollection(db: SQLite.Database, vectors: VectorCache, query: string, topK: number, options?: RetrievalSearchOptions): RetrievalHit[] {
  const terms = queryTerms(query);
  const read = db.transaction((): RetrievalHit[] => {
    const match = ftsQuery(matchTerms(db, terms));
    const sparseLimit = Math.max(options?.fusion?.topKSparse ?? DEFAULT_SPARSE, topK);
    let sparse: Row[] = [];
    if (match) {
      const params: unknown[] = [match];
      const filters = filterSql(options, params);
      // Without filters FTS5's ORDER BY rank LIMIT runs inside the index; with them the join filters first.
      const sql = filters
        ? `SELECT ${COLUMNS}, f.rank AS rank FROM docs_fts f JOIN docs d ON d.rowid = f.rowid WHERE docs_fts MATCH ?${filters} ORDER BY f.rank LIMIT ?`
        : `SELECT ${COLUMNS}, f.rank AS rank FROM (SELECT rowid, rank FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rank LIMIT ?) f JOIN docs d ON d.rowid = f.rowid`;
      sparse = db.prepare(sql).all(...(filters ? [...params, sparseLimit] : [match, sparseLimit])) as Row[];
    }
    const rows = new Map<number, Row>(sparse.map((r) => [r.rowid, r]));
    const candidates: Candidate[] = sparse.map((r) => ({ ...r, bm25: -r.rank }));
    let ranked = rescoreSparse(candidates, { terms, query, ...(options?.boostTerms ? { boostTerms: options.boostTerms } : {}) });
    if (options?.queryVector?.length && options.fusion) {
      const dense = cosineTopK(vectors.load(db), options.queryVector, options.fusion.topKDense);
      if (dense.length) {
        const missing = dense.map((d) => d.rowid).filter((id) => !rows.has(id));
        if (missing.length) {
          const params: unknown[] = [];
          const filters = filterSql(options, params);
          const extra = db.prepare(`SELECT ${COLUMNS}, 0 AS rank FROM docs d WHERE d.rowid IN (${missing.map(() => '?').join(',')})${filters}`).all(...missing, ...params) as Row[];
          for (const r of extra) rows.set(r.rowid, r);
        }
        const denseCandidates: Candidate[] = dense.filter((d) => rows.has(d.rowid)).map((d) => ({ ...rows.get(d.rowid)!, bm25: 0, cosine: d.cosine }));
        ranked = fuseRankings(ranked, denseCandidates, { kDiv: options.fusion.kDiv, sparseWeight: options.fusion.sparseWeight, denseWeight: options.fusion.denseWeight });
      }
    }
    return diversifyByFile(ranked, topK).map((s) => chunkHit(s, rows.get(s.rowid)!));
  });
  return read.deferred();
}
