import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * The code index of one repository revision, beside the retrieval backend's BM25 index and stored
 * the way retrieval-sqlite stores it (one SQLite file, WAL): every indexed file's content, a
 * trigram index of it (FTS5's trigram tokenizer, case folded; matches are confirmed on the
 * content with the query's case), and the tree-sitter definitions and identifier occurrences.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  content TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS files_trigrams USING fts5(content, tokenize = 'trigram', content = '', contentless_delete = 1);
CREATE TABLE IF NOT EXISTS symbols (
  file_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  line INTEGER NOT NULL,
  col INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  container TEXT
);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE TABLE IF NOT EXISTS refs (file_id INTEGER NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS refs_name ON refs(name);
CREATE INDEX IF NOT EXISTS refs_file ON refs(file_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Bumped when the stored rows change meaning: an older file is emptied, and the next index run fills it. */
const SCHEMA_VERSION = 2;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$/;

/** The revision's file: `<repo>.sqlite` for the working tree, `<repo>@<rev>.sqlite` for a git revision. */
export function codeIndexFile(dataDir: string, repo: string, rev?: string): string {
  const name = rev ? `${repo}@${rev.replace(/[^A-Za-z0-9._-]/g, '_')}` : repo;
  if (!NAME.test(name) || name.includes('..')) throw new Error(`code index name "${name}" is not a plain name`);
  return path.join(dataDir, 'code-index', `${name}.sqlite`);
}

export function openCodeIndexDb(file: string, options: { readonly?: boolean } = {}): SQLite.Database {
  if (options.readonly) {
    const db = new SQLite(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const created = !existsSync(file);
  const db = new SQLite(file);
  // It holds the repository's code: owner-only, like the retrieval index.
  if (created) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const version = db.pragma('user_version', { simple: true }) as number;
  const fresh = !db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'files_trigrams'").get();
  if (fresh || version !== SCHEMA_VERSION) db.transaction(() => {
    if (!fresh) db.exec('DROP TABLE IF EXISTS files_trigrams; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS refs; DROP TABLE IF EXISTS meta;');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec(SCHEMA);
  }).immediate();
  return db;
}
