import type pg from 'pg';
import type { RetrievalHit, RetrievalSearchOptions } from 'switchboard/sdk';
import { chunkHit, type ChunkColumns, cosineTopK, diversifyByFile, fuseRankings, queryTerms, rescoreSparse, sparseMatchTerms, stem, type Candidate } from 'switchboard/sdk/retrieval';
import type { VectorCache } from './vector-cache.js';

/** Candidates BM25 hands to the re-scoring step when the caller gives no TOPK_SPARSE. */
const DEFAULT_SPARSE = 75;

/**
 * BM25 as SQLite's FTS5 computes it (k1 1.2, b 0.75; a term's frequency counts a symbol
 * occurrence 6 times, a path occurrence 3 times and an enrichment occurrence half, see TERM_WEIGHTS; the row's length is all its
 * terms; IDF is floored at 1e-6), so both backends hand the shared ranking rules the same candidates.
 */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

interface Row extends ChunkColumns {
  rowid: string;
  enrichment: string | null;
  bm25: number;
}

type Doc = Omit<Row, 'rowid'> & { rowid: number };

const COLUMNS = 'd.rowid, d.id, d.path, d.language, d.start_line, d.end_line, d.symbol, d.kind, d.text, d.metadata, d.enrichment';

/** Filters by path prefix and language, as SQL over parameters numbered from `params.length + 1`. */
function filterSql(options: RetrievalSearchOptions | undefined, params: unknown[]): string {
  const parts: string[] = [];
  const prefixes = options?.filters?.pathPrefixes?.filter(Boolean) ?? [];
  if (prefixes.length) {
    params.push(prefixes);
    // left(path, length(prefix)) = prefix: no LIKE, so `%` and `_` in a prefix are plain characters.
    parts.push(`EXISTS (SELECT 1 FROM unnest($${params.length}::text[]) p WHERE left(d.path, length(p)) = p)`);
  }
  const languages = options?.filters?.languages?.filter(Boolean) ?? [];
  if (languages.length) {
    params.push(languages);
    parts.push(`d.language = ANY($${params.length}::text[])`);
  }
  return parts.length ? ` AND ${parts.join(' AND ')}` : '';
}

/**
 * The best `$5` documents by BM25 over the query's postings ($2 terms, $3 their IDF, $4 the
 * average length): an index-only scan of each term's rows, summed per document. With filters the
 * postings of documents outside them are left out before summing.
 */
const SPARSE_SQL = (filters: string) => `
SELECT ${COLUMNS}, s.bm25
FROM (
  SELECT p.rowid, sum(q.idf * p.freq::float8 * ${BM25.k1 + 1} / (p.freq::float8 + ${BM25.k1} * (${1 - BM25.b} + ${BM25.b} * p.len / $4::float8))) AS bm25
  FROM unnest($2::text[], $3::float8[]) AS q(term, idf)
  JOIN retrieval_postings p ON p.collection = $1 AND p.term = q.term${filters ? `
  JOIN retrieval_docs d ON d.rowid = p.rowid${filters}` : ''}
  GROUP BY p.rowid
  ORDER BY bm25 DESC, p.rowid
  LIMIT $5
) s
JOIN retrieval_docs d ON d.rowid = s.rowid
ORDER BY s.bm25 DESC, s.rowid`;

/** Searches one collection inside one read-only snapshot, so every statement sees the same commit. */
export async function searchCollection(pool: pg.Pool, vectors: VectorCache, collection: string, query: string, topK: number, options?: RetrievalSearchOptions): Promise<RetrievalHit[]> {
  const terms = queryTerms(query);
  const stems = [...new Set(terms.map(stem))];
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await client.query<{ documents: string; total_len: string; version: string; df: Record<string, number> | null }>({
      name: 'retrieval-postgres.head',
      text: `SELECT c.documents, c.total_len, c.version,
               (SELECT json_object_agg(v.term, v.df) FROM retrieval_vocab v WHERE v.collection = c.name AND v.term = ANY($2::text[]) AND v.df > 0) AS df
             FROM retrieval_collections c WHERE c.name = $1`,
      values: [collection, stems],
    });
    const info = head.rows[0];
    if (!info) return [];
    const total = Number(info.documents) || 1;
    const avgdl = Number(info.total_len) / total || 1;
    const df = info.df ?? {};
    const match = sparseMatchTerms(stems.map((t) => ({ t, df: df[t] ?? 0 })), total);
    const sparseLimit = Math.max(options?.fusion?.topKSparse ?? DEFAULT_SPARSE, topK);
    let sparse: Doc[] = [];
    if (match.length) {
      const idf = match.map((x) => {
        const v = Math.log((total - x.df + 0.5) / (x.df + 0.5));
        return v > 0 ? v : 1e-6;
      });
      const params: unknown[] = [collection, match.map((x) => x.t), idf, avgdl, sparseLimit];
      const filters = filterSql(options, params);
      const res = await client.query<Row>({ ...(filters ? {} : { name: 'retrieval-postgres.sparse' }), text: SPARSE_SQL(filters), values: params });
      sparse = res.rows.map((r) => ({ ...r, rowid: Number(r.rowid), bm25: Number(r.bm25) }));
    }
    const rows = new Map<number, Doc>(sparse.map((r) => [r.rowid, r]));
    const candidates: Candidate[] = sparse.map((r) => ({ ...r }));
    let ranked = rescoreSparse(candidates, { terms, query, ...(options?.boostTerms ? { boostTerms: options.boostTerms } : {}) });
    if (options?.queryVector?.length && options.fusion) {
      const stored = await vectors.load(client, collection, info.version);
      const dense = cosineTopK(stored, options.queryVector, options.fusion.topKDense);
      if (dense.length) {
        const missing = dense.map((d) => d.rowid).filter((id) => !rows.has(id));
        if (missing.length) {
          const params: unknown[] = [collection, missing];
          const filters = filterSql(options, params);
          const extra = await client.query<Row>(`SELECT ${COLUMNS}, 0 AS bm25 FROM retrieval_docs d WHERE d.collection = $1 AND d.rowid = ANY($2::bigint[])${filters}`, params);
          for (const r of extra.rows) rows.set(Number(r.rowid), { ...r, rowid: Number(r.rowid), bm25: 0 });
        }
        const denseCandidates: Candidate[] = dense.filter((d) => rows.has(d.rowid)).map((d) => ({ ...rows.get(d.rowid)!, bm25: 0, cosine: d.cosine }));
        ranked = fuseRankings(ranked, denseCandidates, { kDiv: options.fusion.kDiv, sparseWeight: options.fusion.sparseWeight, denseWeight: options.fusion.denseWeight });
      }
    }
    return diversifyByFile(ranked, topK).map((s) => chunkHit(s, rows.get(s.rowid)!));
  } finally {
    await client.query('COMMIT').catch(() => {});
    client.release();
  }
}
