import { existsSync } from 'node:fs';
import type SQLite from 'better-sqlite3';
import { LruMap } from '../../../platform/runtime/lru-map.js';
import { openCodeIndexDb } from './code-index-db.js';

export interface IndexedFile {
  id: number;
  path: string;
  language: string;
  size: number;
  content: string;
}

/** A candidate file before its content is read: filters on the path run first. */
export type CandidateFile = Omit<IndexedFile, 'content'>;

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

/** Phrases used per query (the longest): enough to narrow candidates; every match is confirmed on the content anyway. */
const MAX_PHRASES = 8;

/**
 * File contents read by exact searches, shared by every open index, least recently used first
 * out: a repeated or similar query confirms its candidates without reading and decoding them from
 * SQLite again (a third of a regex query's time on a 6 MB repository). Entries are keyed by the
 * index's data version, so a committed run makes the older ones unreachable; they age out.
 */
const CONTENT_CACHE_CHARS = 16 * 1024 * 1024;
const contentCache = new LruMap<string, string>(CONTENT_CACHE_CHARS, (text) => text.length);
let nextReaderId = 1;

/** Reads one revision's code index (a read-only connection; WAL lets it see each committed run). */
export class CodeIndexReader {
  /** Prepared statements by SQL text: a repeated query skips SQLite's parse and plan. */
  private readonly statements = new Map<string, SQLite.Statement>();
  private readonly readerId = nextReaderId++;
  /** Inside read(): the data version of its snapshot once a content read asked for it. */
  private snapshotVersion: number | undefined;
  private inRead = false;

  private constructor(private readonly db: SQLite.Database) {}

  private statement(sql: string): SQLite.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  static open(file: string): CodeIndexReader | undefined {
    if (!existsSync(file)) return undefined;
    return new CodeIndexReader(openCodeIndexDb(file, { readonly: true }));
  }

  close(): void {
    this.db.close();
  }

  /** Runs reads in one transaction, so they all see the same committed index run. */
  read<T>(reads: () => T): T {
    this.inRead = true;
    this.snapshotVersion = undefined;
    try {
      return this.db.transaction(reads)();
    } finally {
      this.inRead = false;
      this.snapshotVersion = undefined;
    }
  }

  /**
   * Files holding every phrase (each at least three characters; all files when none is given) as
   * a case-folded substring, by the trigram index and its positions, in path order: candidates,
   * since the index folds case. Without their content, which content() reads one file at a time
   * (sorting the content along with the paths copied it all).
   */
  candidates(phrases: string[], languages: { only: string[]; not: string[] }): CandidateFile[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (phrases.length) {
      where.push('id IN (SELECT rowid FROM files_trigrams WHERE files_trigrams MATCH ?)');
      params.push(phrases.slice(0, MAX_PHRASES).map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND '));
    }
    if (languages.only.length) {
      where.push(`language IN (${languages.only.map(() => '?').join(', ')})`);
      params.push(...languages.only);
    }
    if (languages.not.length) {
      where.push(`language NOT IN (${languages.not.map(() => '?').join(', ')})`);
      params.push(...languages.not);
    }
    const sql = `SELECT id, path, language, size FROM files ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY path`;
    return this.statement(sql).all(...params) as CandidateFile[];
  }

  /** A file's content by id ('' once the file has left the index). */
  content(id: number): string {
    const read = () => (this.statement('SELECT content FROM files WHERE id = ?').pluck().get(id) as string | undefined) ?? '';
    if (!this.inRead) return read();
    // Asked once the transaction has read (its snapshot is taken): the version of what it sees.
    this.snapshotVersion ??= this.statement('PRAGMA data_version').pluck().get() as number;
    const key = `${this.readerId}:${this.snapshotVersion}:${id}`;
    const hit = contentCache.get(key);
    if (hit !== undefined) return hit;
    const text = read();
    // One large file would push out many small ones.
    if (text.length <= CONTENT_CACHE_CHARS / 8) contentCache.set(key, text);
    return text;
  }

  file(path: string): IndexedFile | undefined {
    return this.statement('SELECT id, path, language, size, content FROM files WHERE path = ?').get(path) as IndexedFile | undefined;
  }

  /** Paths of files under `prefix` ('' for all), in order. */
  paths(prefix: string): string[] {
    const rows = prefix
      ? (this.statement("SELECT path FROM files WHERE substr(path, 1, ?) = ? ORDER BY path").pluck().all(prefix.length + 1, `${prefix}/`) as string[])
      : (this.statement('SELECT path FROM files ORDER BY path').pluck().all() as string[]);
    return rows;
  }

  sizes(paths: string[]): Map<string, { size: number; language: string }> {
    const get = this.statement('SELECT size, language FROM files WHERE path = ?');
    return new Map(paths.map((p) => [p, get.get(p) as { size: number; language: string }]));
  }

  /** Definitions whose name matches: exactly (case as given), or as a case-insensitive substring. */
  symbols(name: string, options: { exact: boolean; limit: number; languages?: string[] }): SymbolRow[] {
    const langs = options.languages?.length ? ` AND f.language IN (${options.languages.map(() => '?').join(', ')})` : '';
    const sql = options.exact
      ? `SELECT f.path, f.language, s.name, s.kind, s.line, s.col, s.end_line, s.container FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? COLLATE NOCASE${langs} ORDER BY (s.name = ?) DESC, f.path, s.line LIMIT ?`
      : `SELECT f.path, f.language, s.name, s.kind, s.line, s.col, s.end_line, s.container FROM symbols s JOIN files f ON f.id = s.file_id WHERE instr(lower(s.name), lower(?)) > 0${langs} ORDER BY (s.name = ?) DESC, (lower(s.name) = lower(?)) DESC, length(s.name), f.path, s.line LIMIT ?`;
    const params = options.exact ? [name, ...(options.languages ?? []), name, options.limit] : [name, ...(options.languages ?? []), name, name, options.limit];
    return this.statement(sql).all(...params) as SymbolRow[];
  }

  /** Identifier occurrences of exactly `name` (definitions are symbols, not references). */
  references(name: string, limit: number): ReferenceRow[] {
    return this
      .statement('SELECT f.path, f.language, r.name, r.line, r.col FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ? ORDER BY f.path, r.line, r.col LIMIT ?')
      .all(name, limit) as ReferenceRow[];
  }

  meta(key: string): string | undefined {
    return this.statement('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
  }
}
