import { existsSync } from 'node:fs';
import type SQLite from 'better-sqlite3';
import { openCodeIndexDb } from './code-index-db.js';

export interface IndexedFile {
  id: number;
  path: string;
  language: string;
  size: number;
  content: string;
}

export interface SymbolRow {
  path: string;
  language: string;
  name: string;
  kind: string;
  line: number;
  col: number;
  end_line: number;
  container: string | null;
}

export interface ReferenceRow {
  path: string;
  language: string;
  name: string;
  line: number;
  col: number;
}

/** Trigrams used per query: enough to narrow candidates; every match is confirmed on the content anyway. */
const MAX_TRIGRAMS = 24;

/** Reads one revision's code index (a read-only connection; WAL lets it see each committed run). */
export class CodeIndexReader {
  private constructor(private readonly db: SQLite.Database) {}

  static open(file: string): CodeIndexReader | undefined {
    if (!existsSync(file)) return undefined;
    return new CodeIndexReader(openCodeIndexDb(file, { readonly: true }));
  }

  close(): void {
    this.db.close();
  }

  /**
   * Files holding every trigram (all of them when none is given), in path order: candidates, since
   * the trigram index is case folded and knows nothing of order.
   */
  *candidates(trigrams: string[], languages: { only: string[]; not: string[] }): Generator<IndexedFile> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (trigrams.length) {
      const picked = trigrams.length <= MAX_TRIGRAMS ? trigrams : trigrams.filter((_, i) => i % Math.ceil(trigrams.length / MAX_TRIGRAMS) === 0);
      where.push('id IN (SELECT rowid FROM files_trigrams WHERE files_trigrams MATCH ?)');
      params.push(picked.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND '));
    }
    if (languages.only.length) {
      where.push(`language IN (${languages.only.map(() => '?').join(', ')})`);
      params.push(...languages.only);
    }
    if (languages.not.length) {
      where.push(`language NOT IN (${languages.not.map(() => '?').join(', ')})`);
      params.push(...languages.not);
    }
    const sql = `SELECT id, path, language, size, content FROM files ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY path`;
    yield* this.db.prepare(sql).iterate(...params) as IterableIterator<IndexedFile>;
  }

  file(path: string): IndexedFile | undefined {
    return this.db.prepare('SELECT id, path, language, size, content FROM files WHERE path = ?').get(path) as IndexedFile | undefined;
  }

  /** Paths of files under `prefix` ('' for all), in order. */
  paths(prefix: string): string[] {
    const rows = prefix
      ? (this.db.prepare("SELECT path FROM files WHERE substr(path, 1, ?) = ? ORDER BY path").pluck().all(prefix.length + 1, `${prefix}/`) as string[])
      : (this.db.prepare('SELECT path FROM files ORDER BY path').pluck().all() as string[]);
    return rows;
  }

  sizes(paths: string[]): Map<string, { size: number; language: string }> {
    const get = this.db.prepare('SELECT size, language FROM files WHERE path = ?');
    return new Map(paths.map((p) => [p, get.get(p) as { size: number; language: string }]));
  }

  /** Definitions whose name matches: exactly (case as given), or as a case-insensitive substring. */
  symbols(name: string, options: { exact: boolean; limit: number; languages?: string[] }): SymbolRow[] {
    const langs = options.languages?.length ? ` AND f.language IN (${options.languages.map(() => '?').join(', ')})` : '';
    const sql = options.exact
      ? `SELECT f.path, f.language, s.name, s.kind, s.line, s.col, s.end_line, s.container FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? COLLATE NOCASE${langs} ORDER BY (s.name = ?) DESC, f.path, s.line LIMIT ?`
      : `SELECT f.path, f.language, s.name, s.kind, s.line, s.col, s.end_line, s.container FROM symbols s JOIN files f ON f.id = s.file_id WHERE instr(lower(s.name), lower(?)) > 0${langs} ORDER BY (s.name = ?) DESC, (lower(s.name) = lower(?)) DESC, length(s.name), f.path, s.line LIMIT ?`;
    const params = options.exact ? [name, ...(options.languages ?? []), name, options.limit] : [name, ...(options.languages ?? []), name, name, options.limit];
    return this.db.prepare(sql).all(...params) as SymbolRow[];
  }

  /** Identifier occurrences of exactly `name` (definitions are symbols, not references). */
  references(name: string, limit: number): ReferenceRow[] {
    return this.db
      .prepare('SELECT f.path, f.language, r.name, r.line, r.col FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ? ORDER BY f.path, r.line, r.col LIMIT ?')
      .all(name, limit) as ReferenceRow[];
  }

  meta(key: string): string | undefined {
    return this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
  }
}
