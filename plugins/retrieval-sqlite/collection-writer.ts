import type SQLite from 'better-sqlite3';
import type { RetrievalDocument, RetrievalSource, RetrievalStats } from 'switchboard/sdk';
import { indexPathTerms, indexTerms, vectorBytes } from 'switchboard/sdk/retrieval';

/** Writes documents and their terms; the caller owns the transaction. */
export class CollectionWriter {
  private readonly insertDoc: SQLite.Statement;
  private readonly insertFts: SQLite.Statement;
  private readonly deleteFts: SQLite.Statement;
  private readonly docIdsOfPath: SQLite.Statement;
  private readonly docById: SQLite.Statement;
  private readonly deleteDocsOfPath: SQLite.Statement;
  private readonly deleteDocById: SQLite.Statement;
  private readonly upsertSource: SQLite.Statement;
  private readonly deleteSource: SQLite.Statement;

  constructor(private readonly db: SQLite.Database) {
    this.insertDoc = db.prepare(
      'INSERT INTO docs (id, path, language, start_line, end_line, symbol, kind, text, metadata, vector, enrichment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertFts = db.prepare('INSERT INTO docs_fts (rowid, symbol, path, body, enrichment) VALUES (?, ?, ?, ?, ?)');
    this.deleteFts = db.prepare('DELETE FROM docs_fts WHERE rowid = ?');
    this.docIdsOfPath = db.prepare('SELECT rowid FROM docs WHERE path = ?').pluck();
    this.docById = db.prepare('SELECT rowid FROM docs WHERE id = ?').pluck();
    this.deleteDocsOfPath = db.prepare('DELETE FROM docs WHERE path = ?');
    this.deleteDocById = db.prepare('DELETE FROM docs WHERE rowid = ?');
    this.upsertSource = db.prepare('INSERT INTO sources (path, hash) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET hash = excluded.hash');
    this.deleteSource = db.prepare('DELETE FROM sources WHERE path = ?');
  }

  sources(): RetrievalSource[] {
    return this.db.prepare('SELECT path, hash FROM sources').all() as RetrievalSource[];
  }

  /** Adds documents; a document with an existing id replaces it. */
  add(documents: RetrievalDocument[]): number {
    for (const doc of documents) {
      const old = this.docById.get(doc.id) as number | undefined;
      if (old !== undefined) this.removeRow(old);
      const m = doc.metadata ?? {};
      const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
      const int = (v: unknown) => (Number.isInteger(v) ? (v as number) : null);
      const docPath = str(m.path);
      const symbol = str(m.symbol);
      const { path: _p, language: _l, start_line: _s, end_line: _e, symbol: _y, kind: _k, ...rest } = m;
      const vector = doc.vector?.length ? vectorBytes(doc.vector) : null;
      const info = this.insertDoc.run(
        doc.id, docPath, str(m.language), int(m.start_line), int(m.end_line), symbol, str(m.kind), doc.text,
        Object.keys(rest).length ? JSON.stringify(rest) : null, vector, doc.enrichment || null,
      );
      // Terms the host made ahead in its chunking threads (contract 1.3) are used as they are.
      const made = doc.terms;
      this.insertFts.run(
        info.lastInsertRowid,
        symbol ? (made?.symbol ?? indexTerms(symbol)) : '',
        docPath ? (made?.path ?? indexPathTerms(docPath)) : '',
        made?.body ?? indexTerms(doc.text),
        doc.enrichment ? indexTerms(doc.enrichment) : '',
      );
    }
    return documents.length;
  }

  replaceSource(sourcePath: string, hash: string, documents: RetrievalDocument[]): void {
    this.removePath(sourcePath);
    this.add(documents.map((d) => ({ ...d, metadata: { ...d.metadata, path: sourcePath } })));
    this.upsertSource.run(sourcePath, hash);
  }

  deleteSources(paths: string[]): number {
    let deleted = 0;
    for (const p of paths) {
      deleted += this.removePath(p);
      this.deleteSource.run(p);
    }
    return deleted;
  }

  deleteIds(ids: string[]): number {
    let deleted = 0;
    for (const id of ids) {
      const row = this.docById.get(id) as number | undefined;
      if (row === undefined) continue;
      this.removeRow(row);
      deleted++;
    }
    return deleted;
  }

  stats(): RetrievalStats {
    const row = this.db
      .prepare('SELECT (SELECT count(*) FROM docs) AS documents, (SELECT count(*) FROM sources) AS sources, (SELECT count(*) FROM docs WHERE vector IS NOT NULL) AS vectors')
      .get() as RetrievalStats;
    return row;
  }

  private removePath(sourcePath: string): number {
    const rows = this.docIdsOfPath.all(sourcePath) as number[];
    for (const r of rows) this.deleteFts.run(r);
    this.deleteDocsOfPath.run(sourcePath);
    return rows.length;
  }

  private removeRow(rowid: number): void {
    this.deleteFts.run(rowid);
    this.deleteDocById.run(rowid);
  }
}
