import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * One SQLite file per collection: `docs` holds the documents, `docs_fts` (contentless FTS5)
 * their code-aware terms in four columns (symbol, path, body, enrichment) and `sources` the content hash of
 * every indexed file. WAL mode: searches read a committed snapshot while a session writes.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS sources (path TEXT PRIMARY KEY, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  path TEXT,
  language TEXT,
  start_line INTEGER,
  end_line INTEGER,
  symbol TEXT,
  kind TEXT,
  text TEXT NOT NULL,
  metadata TEXT,
  vector BLOB,
  enrichment TEXT
);
CREATE INDEX IF NOT EXISTS docs_path ON docs(path);
CREATE INDEX IF NOT EXISTS docs_with_vector ON docs(rowid) WHERE vector IS NOT NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(symbol, path, body, enrichment, tokenize = 'unicode61', content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_vocab USING fts5vocab(docs_fts, 'row');
`;

/**
 * Bumped when the stored terms change meaning; an older file is emptied and rebuilt by the next
 * indexing run (the index is derived data: its sources table empties too, so that run is full).
 * 2: terms are stemmed in JS (indexTerms of switchboard/sdk/retrieval), so document frequencies can be looked up exactly.
 * 3: the enrichment column (an LLM's summary and keywords of a chunk, contract 1.2), and a partial
 *    index of the rows with a vector, so counting them reads no document.
 */
const SCHEMA_VERSION = 3;

/**
 * Symbol matches weigh most, then path terms, then the body, then the enrichment (FTS5's own bm25
 * column weights): an LLM's words about a chunk are a weaker witness than the chunk's own words,
 * so a chunk found only by its summary ranks below one whose code says the same.
 */
export const FTS_COLUMN_WEIGHTS = [6, 3, 1, 0.5] as const;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A collection name becomes a file name: plain names only, so no caller reaches outside `dir`. */
export function collectionFile(dir: string, collection: string): string {
  if (!NAME.test(collection) || collection.includes('..')) throw new Error(`collection name "${collection}" is not a plain name`);
  return path.join(dir, `${collection}.sqlite`);
}

export function openCollectionDb(dir: string, collection: string, options: { busyTimeoutMs?: number } = {}): SQLite.Database {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = collectionFile(dir, collection);
  const created = !existsSync(file);
  const db = new SQLite(file);
  // The index holds the repository's code: owner-only, like other files holding documents
  // (SQLite gives its -wal and -shm files the same mode).
  if (created) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('synchronous = NORMAL');
  // Only a new or outdated file is written to here: opening must not need the write lock a session may hold.
  const version = db.pragma('user_version', { simple: true }) as number;
  const fresh = !db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'docs_fts'").get();
  if (fresh || version !== SCHEMA_VERSION) db.transaction(() => {
    if (!fresh) db.exec('DROP TABLE IF EXISTS docs_vocab; DROP TABLE IF EXISTS docs_fts; DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS sources;');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec(SCHEMA);
    // FTS5 orders `ORDER BY rank` with these column weights inside the index.
    db.prepare(`INSERT INTO docs_fts(docs_fts, rank) VALUES ('rank', ?)`).run(`bm25(${FTS_COLUMN_WEIGHTS.join(', ')})`);
  }).immediate();
  return db;
}
