import type SQLite from 'better-sqlite3';
import { storedVector, type StoredVector } from 'switchboard/sdk/retrieval';

/**
 * The collection's vectors in memory for brute-force cosine (reference: about 90 ms per query
 * at 200k x 384). Reloaded when another connection committed (PRAGMA data_version moves) or
 * this one wrote (invalidate()).
 */
export class VectorCache {
  private version = -1;
  private vectors: StoredVector[] = [];

  invalidate(): void {
    this.version = -1;
  }

  load(db: SQLite.Database): StoredVector[] {
    const version = db.pragma('data_version', { simple: true }) as number;
    if (version === this.version) return this.vectors;
    const rows = db.prepare('SELECT rowid, vector FROM docs WHERE vector IS NOT NULL').all() as Array<{ rowid: number; vector: Buffer }>;
    this.vectors = rows.map((r) => storedVector(r.rowid, r.vector));
    this.version = version;
    return this.vectors;
  }
}
