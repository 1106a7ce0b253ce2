import type pg from 'pg';
import type { RetrievalDocument, RetrievalSource, RetrievalStats } from 'switchboard/sdk';
import { indexTerms, pathTerms, stem, vectorBytes } from 'switchboard/sdk/retrieval';

/**
 * How much one occurrence of a term counts in BM25's term frequency, by where it is: the
 * definition's name (A), the file path (B), the chunk's enrichment (C), the body (D). SQLite's
 * FTS5 column weights 6, 3, 0.5, 1: an LLM's words about a chunk are a weaker witness than the
 * chunk's own words.
 */
export const TERM_WEIGHTS = { A: 6, B: 3, C: 0.5, D: 1 } as const;

/** Documents inserted per statement. */
const BATCH = 500;
/**
 * Documents a session gathers before writing them: its writes are seen only at commit, so
 * replacing fifty small files costs a few statements instead of a few per file.
 */
const FLUSH_DOCS = 500;

/**
 * Writes one collection's documents, their terms and the term counts; the caller owns the
 * transaction and holds the collection's row lock (lock()). A session's file replacements are gathered and written
 * in batches; finish() writes what is left.
 */
export class CollectionWriter {
  private readonly pending = new Map<string, { hash: string; documents: RetrievalDocument[] }>();
  private pendingDocs = 0;
  /**
   * Changes to the term counts, applied once by finish(): a term row updated once per file would
   * leave one row version per update inside the transaction, and each upsert walks them all.
   */
  private readonly dfDelta = new Map<string, number>();

  constructor(
    private readonly db: pg.ClientBase,
    private readonly collection: string,
  ) {}

  /** Takes the collection's write lock: waits for it, or with `nowait` fails at once (55P03). */
  async lock(nowait: boolean): Promise<void> {
    await this.db.query(`SELECT name FROM retrieval_collections WHERE name = $1 FOR UPDATE${nowait ? ' NOWAIT' : ''}`, [this.collection]);
  }

  async sources(): Promise<RetrievalSource[]> {
    await this.flush();
    const { rows } = await this.db.query<RetrievalSource>('SELECT path, hash FROM retrieval_sources WHERE collection = $1 ORDER BY path', [this.collection]);
    return rows;
  }

  /** Adds documents; a document with an existing id replaces it. */
  async add(documents: RetrievalDocument[]): Promise<number> {
    await this.flush();
    const docs = lastOfEachId(documents);
    for (let i = 0; i < docs.length; i += BATCH) {
      const batch = docs.slice(i, i + BATCH);
      await this.remove('id = ANY($2::text[])', [batch.map((d) => d.id)]);
      await this.insert(batch);
    }
    return documents.length;
  }

  /** Replaces every document of a file; written by the next flush (at the latest, at finish). */
  async replaceSource(sourcePath: string, hash: string, documents: RetrievalDocument[]): Promise<void> {
    const earlier = this.pending.get(sourcePath);
    if (earlier) {
      this.pendingDocs -= earlier.documents.length;
      this.pending.delete(sourcePath);
    }
    this.pending.set(sourcePath, { hash, documents: documents.map((d) => ({ ...d, metadata: { ...d.metadata, path: sourcePath } })) });
    this.pendingDocs += documents.length;
    if (this.pendingDocs >= FLUSH_DOCS) await this.flush();
  }

  /** Writes the gathered files: their old documents (and any other with a new id) out, the new ones in, their hashes. */
  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const files = [...this.pending];
    this.pending.clear();
    this.pendingDocs = 0;
    const docs = lastOfEachId(files.flatMap(([, f]) => f.documents));
    await this.remove('(path = ANY($2::text[]) OR id = ANY($3::text[]))', [files.map(([p]) => p), docs.map((d) => d.id)]);
    for (let i = 0; i < docs.length; i += BATCH) await this.insert(docs.slice(i, i + BATCH));
    await this.db.query(
      `INSERT INTO retrieval_sources (collection, path, hash) SELECT $1, p, h FROM unnest($2::text[], $3::text[]) AS x(p, h)
       ON CONFLICT (collection, path) DO UPDATE SET hash = excluded.hash`,
      [this.collection, files.map(([p]) => p), files.map(([, f]) => f.hash)],
    );
  }

  async deleteSources(paths: string[]): Promise<number> {
    await this.flush();
    if (!paths.length) return 0;
    const deleted = await this.remove('path = ANY($2::text[])', [paths]);
    await this.db.query('DELETE FROM retrieval_sources WHERE collection = $1 AND path = ANY($2::text[])', [this.collection, paths]);
    return deleted;
  }

  async deleteIds(ids: string[]): Promise<number> {
    await this.flush();
    return ids.length ? this.remove('id = ANY($2::text[])', [ids]) : 0;
  }

  /**
   * Brings the collection's row up to date (BM25's N and total length) and moves its version;
   * call it once at the end of the transaction.
   */
  async finish(): Promise<void> {
    await this.flush();
    const changed = [...this.dfDelta].filter(([, n]) => n !== 0);
    this.dfDelta.clear();
    if (changed.length) {
      await this.db.query(
        `INSERT INTO retrieval_vocab (collection, term, df) SELECT $1, t, n FROM unnest($2::text[], $3::int[]) AS x(t, n)
         ON CONFLICT (collection, term) DO UPDATE SET df = retrieval_vocab.df + excluded.df`,
        [this.collection, changed.map(([t]) => t), changed.map(([, n]) => n)],
      );
      await this.db.query('DELETE FROM retrieval_vocab WHERE collection = $1 AND df <= 0', [this.collection]);
    }
    await this.db.query(
      `UPDATE retrieval_collections c SET documents = s.n, total_len = s.len, version = c.version + 1
       FROM (SELECT count(*) AS n, coalesce(sum(len), 0) AS len FROM retrieval_docs WHERE collection = $1) s WHERE c.name = $1`,
      [this.collection],
    );
  }

  async stats(): Promise<RetrievalStats> {
    return collectionStats(this.db, this.collection);
  }

  /** Deletes the collection's documents matching `where` (over $2...) and takes their terms off the counts. */
  private async remove(where: string, params: unknown[]): Promise<number> {
    const { rows } = await this.db.query<{ n: number; terms: Record<string, number> | null }>(
      `WITH gone AS (DELETE FROM retrieval_docs WHERE collection = $1 AND ${where} RETURNING rowid, terms),
       lexemes AS (SELECT gone.rowid, u.lexeme FROM gone, unnest(gone.terms) u),
       postings AS (DELETE FROM retrieval_postings p USING lexemes l WHERE p.collection = $1 AND p.term = l.lexeme AND p.rowid = l.rowid RETURNING 1)
       SELECT (SELECT count(*)::int FROM gone) AS n,
              (SELECT json_object_agg(lexeme, n) FROM (SELECT lexeme, count(*)::int AS n FROM lexemes GROUP BY lexeme) t) AS terms,
              (SELECT count(*) FROM postings) AS postings`,
      [this.collection, ...params],
    );
    for (const [term, n] of Object.entries(rows[0]?.terms ?? {})) this.dfDelta.set(term, (this.dfDelta.get(term) ?? 0) - n);
    return rows[0]?.n ?? 0;
  }

  private async insert(documents: RetrievalDocument[]): Promise<void> {
    if (!documents.length) return;
    const cols: unknown[][] = Array.from({ length: 16 }, () => []);
    const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
    const int = (v: unknown) => (Number.isInteger(v) ? (v as number) : null);
    for (const doc of documents) {
      const m = doc.metadata ?? {};
      const docPath = str(m.path);
      const symbol = str(m.symbol);
      const { path: _p, language: _l, start_line: _s, end_line: _e, symbol: _y, kind: _k, ...rest } = m;
      const symbolTerms = symbol ? indexTerms(symbol) : '';
      const pathTermText = docPath ? pathTerms(docPath).map(stem).join(' ') : '';
      const bodyTerms = indexTerms(doc.text);
      const enrichment = str(doc.enrichment);
      const enrichmentTerms = enrichment ? indexTerms(enrichment) : '';
      const all = [symbolTerms, pathTermText, bodyTerms, enrichmentTerms].flatMap((s) => (s ? s.split(' ') : []));
      for (const t of new Set(all)) this.dfDelta.set(t, (this.dfDelta.get(t) ?? 0) + 1);
      const values = [
        doc.id, docPath, str(m.language), int(m.start_line), int(m.end_line), symbol, str(m.kind), doc.text,
        Object.keys(rest).length ? JSON.stringify(rest) : null, enrichment,
        doc.vector?.length ? vectorBytes(doc.vector) : null,
        all.length, symbolTerms, pathTermText, bodyTerms, enrichmentTerms,
      ];
      values.forEach((v, i) => cols[i]!.push(v));
    }
    // Row numbers follow the given order (ties in ranking go to the lower one, as in SQLite).
    await this.db.query(
      `WITH ins AS (
         INSERT INTO retrieval_docs (collection, id, path, language, start_line, end_line, symbol, kind, text, metadata, enrichment, vector, len, terms)
         SELECT $1, x.id, x.path, x.language, x.start_line, x.end_line, x.symbol, x.kind, x.text, x.metadata, x.enrichment, x.vector, x.len,
                setweight(to_tsvector('simple', x.sym), 'A') || setweight(to_tsvector('simple', x.pth), 'B') || to_tsvector('simple', x.body)
                  || setweight(to_tsvector('simple', x.enr), 'C')
         FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bytea[], $13::int[], $14::text[], $15::text[], $16::text[], $17::text[])
              WITH ORDINALITY AS x(id, path, language, start_line, end_line, symbol, kind, text, metadata, enrichment, vector, len, sym, pth, body, enr, ord)
         ORDER BY x.ord
         RETURNING rowid, len, terms)
       INSERT INTO retrieval_postings (collection, term, rowid, freq, len)
       SELECT $1, u.lexeme, ins.rowid,
              (SELECT sum(CASE w WHEN 'A' THEN ${TERM_WEIGHTS.A} WHEN 'B' THEN ${TERM_WEIGHTS.B} WHEN 'C' THEN ${TERM_WEIGHTS.C} ELSE ${TERM_WEIGHTS.D} END) FROM unnest(u.weights) w),
              ins.len
       FROM ins, unnest(ins.terms) u
       ORDER BY u.lexeme, ins.rowid`,
      [this.collection, ...cols],
    );
  }
}

/** One document per id, the last given (a later document with the same id replaces an earlier one). */
function lastOfEachId(documents: RetrievalDocument[]): RetrievalDocument[] {
  return [...new Map(documents.map((d) => [d.id, d])).values()];
}

/** Counts of a collection; zeros when it does not exist. */
export async function collectionStats(db: pg.ClientBase | pg.Pool, collection: string): Promise<RetrievalStats> {
  const { rows } = await db.query<{ documents: string; sources: string; vectors: string }>(
    `SELECT (SELECT count(*) FROM retrieval_docs WHERE collection = $1) AS documents,
            (SELECT count(*) FROM retrieval_sources WHERE collection = $1) AS sources,
            (SELECT count(*) FROM retrieval_docs WHERE collection = $1 AND vector IS NOT NULL) AS vectors`,
    [collection],
  );
  const r = rows[0]!;
  return { documents: Number(r.documents), sources: Number(r.sources), vectors: Number(r.vectors) };
}
