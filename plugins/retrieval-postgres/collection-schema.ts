import type pg from 'pg';

/**
 * The tables, shared by every collection and every gateway on the database:
 * - `retrieval_collections`: one row per collection, its document count and total term count
 *   (BM25's N and average length) and a version that moves with every commit (vector caches);
 *   a write session holds this row's lock, so one session writes a collection at a time.
 * - `retrieval_docs`: the documents, `terms` a tsvector of the code-aware terms made in JS
 *   (symbol terms weighted A, path terms B, enrichment terms C, body terms D; `simple`
 *   configuration), and `enrichment`, the chunk's enrichment text (contract 1.2) when it has one.
 * - `retrieval_postings`: the tsvector turned inside out, one row per term and document with the
 *   term's weighted count (symbol 6, path 3, body 1, enrichment 0.5) and the document's length: BM25 of a query
 *   is an index-only scan of its terms' rows. (A GIN index on `terms`, matching with `@@` and
 *   reading each match's tsvector, took 180 ms a query at 10,000 files; these rows take 5.)
 * - `retrieval_vocab`: how many documents of a collection hold each term (BM25's IDF, and which
 *   query terms are too common to ask the index for), kept in the writing transaction.
 * - `retrieval_sources`: the content hash of every indexed file.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS retrieval_collections (
  name text PRIMARY KEY,
  documents bigint NOT NULL DEFAULT 0,
  total_len bigint NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS retrieval_docs (
  rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  collection text NOT NULL REFERENCES retrieval_collections (name) ON DELETE CASCADE,
  id text NOT NULL,
  path text,
  language text,
  start_line integer,
  end_line integer,
  symbol text,
  kind text,
  text text NOT NULL,
  metadata text,
  enrichment text,
  vector bytea,
  len integer NOT NULL,
  terms tsvector NOT NULL,
  UNIQUE (collection, id)
);
CREATE INDEX IF NOT EXISTS retrieval_docs_path ON retrieval_docs (collection, path);
CREATE TABLE IF NOT EXISTS retrieval_postings (
  collection text NOT NULL,
  term text NOT NULL,
  rowid bigint NOT NULL,
  freq real NOT NULL,
  len integer NOT NULL,
  PRIMARY KEY (collection, term, rowid) INCLUDE (freq, len)
);
CREATE TABLE IF NOT EXISTS retrieval_vocab (
  collection text NOT NULL,
  term text NOT NULL,
  df integer NOT NULL,
  PRIMARY KEY (collection, term)
);
CREATE TABLE IF NOT EXISTS retrieval_sources (
  collection text NOT NULL,
  path text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (collection, path)
);
CREATE TABLE IF NOT EXISTS retrieval_schema (version integer NOT NULL);
`;

/**
 * Bumped when the stored terms change meaning; older tables are dropped and made again, and the
 * next indexing run is full (the index is derived data). Tables of a newer version are left
 * alone: the plugin refuses to start (not ready, retried) instead.
 * 3: the enrichment (contract 1.2): its own column on documents, its terms in the postings at
 *    weight 0.5, so a posting's weighted count is a real number.
 */
export const SCHEMA_VERSION = 3;

const TABLES = ['retrieval_sources', 'retrieval_vocab', 'retrieval_postings', 'retrieval_docs', 'retrieval_collections', 'retrieval_schema'];

/** Creates or upgrades the tables; gateways starting together take turns (an advisory lock). */
export async function ensureSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('switchboard.retrieval-postgres.schema'))");
    const exists = (await client.query<{ t: string | null }>("SELECT to_regclass('retrieval_schema')::text AS t")).rows[0]?.t;
    const version = exists ? (await client.query<{ version: number }>('SELECT version FROM retrieval_schema')).rows[0]?.version : undefined;
    // A newer gateway already upgraded the tables: this one must not drop them (a rolling upgrade).
    if (version !== undefined && version > SCHEMA_VERSION) {
      throw new Error(`the retrieval tables are at schema version ${version}, newer than this plugin's ${SCHEMA_VERSION}: run the newer version`);
    }
    if (version !== SCHEMA_VERSION) {
      if (exists) await client.query(`DROP TABLE IF EXISTS ${TABLES.join(', ')}`);
      await client.query(SCHEMA);
      await client.query('INSERT INTO retrieval_schema (version) VALUES ($1)', [SCHEMA_VERSION]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Collection names are plain names, as with the SQLite backend (the two are interchangeable). */
export function checkCollection(collection: string): string {
  if (!NAME.test(collection) || collection.includes('..')) throw new Error(`collection name "${collection}" is not a plain name`);
  return collection;
}
