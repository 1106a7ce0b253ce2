import type SQLite from 'better-sqlite3';
import type { SymbolOutline } from './symbol-outline.js';

/** One file as the code index keeps it. */
export interface CodeIndexFile {
  path: string;
  language: string;
  hash: string;
  content: string;
  outline: SymbolOutline;
}

/**
 * Writes a revision's code index in one transaction (begin, files, commit), so a search reads
 * either the old revision or the new one, never half of each.
 */
export class CodeIndexWriter {
  private readonly byPath: SQLite.Statement;
  private readonly insertFile: SQLite.Statement;
  private readonly insertTrigrams: SQLite.Statement;
  private readonly deleteTrigrams: SQLite.Statement;
  private readonly deleteFile: SQLite.Statement;
  private readonly insertSymbol: SQLite.Statement;
  private readonly insertRef: SQLite.Statement;
  private readonly deleteSymbols: SQLite.Statement;
  private readonly deleteRefs: SQLite.Statement;

  constructor(private readonly db: SQLite.Database) {
    this.byPath = db.prepare('SELECT id FROM files WHERE path = ?').pluck();
    this.insertFile = db.prepare('INSERT INTO files (path, language, hash, size, content) VALUES (?, ?, ?, ?, ?)');
    this.insertTrigrams = db.prepare('INSERT INTO files_trigrams (rowid, content) VALUES (?, ?)');
    this.deleteTrigrams = db.prepare('DELETE FROM files_trigrams WHERE rowid = ?');
    this.deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
    this.insertSymbol = db.prepare('INSERT INTO symbols (file_id, name, kind, line, col, end_line, container) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.insertRef = db.prepare('INSERT INTO refs (file_id, name, line, col) VALUES (?, ?, ?, ?)');
    this.deleteSymbols = db.prepare('DELETE FROM symbols WHERE file_id = ?');
    this.deleteRefs = db.prepare('DELETE FROM refs WHERE file_id = ?');
  }

  begin(): void {
    this.db.exec('BEGIN IMMEDIATE');
  }

  commit(): void {
    this.db.exec('COMMIT');
  }

  rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  /** Content hash of every file held, so an index run re-reads only what changed. */
  hashes(): Map<string, string> {
    const rows = this.db.prepare('SELECT path, hash FROM files').all() as Array<{ path: string; hash: string }>;
    return new Map(rows.map((r) => [r.path, r.hash]));
  }

  replace(file: CodeIndexFile): void {
    this.remove(file.path);
    const id = Number(this.insertFile.run(file.path, file.language, file.hash, Buffer.byteLength(file.content), file.content).lastInsertRowid);
    this.insertTrigrams.run(id, file.content);
    for (const d of file.outline.definitions) this.insertSymbol.run(id, d.name, d.kind, d.line, d.column, d.endLine, d.container);
    for (const [name, line, col] of file.outline.references) this.insertRef.run(id, name, line, col);
  }

  remove(path: string): void {
    const id = this.byPath.get(path) as number | undefined;
    if (id === undefined) return;
    this.deleteTrigrams.run(id);
    this.deleteSymbols.run(id);
    this.deleteRefs.run(id);
    this.deleteFile.run(id);
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }
}
