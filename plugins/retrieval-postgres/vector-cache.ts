import type pg from 'pg';
import { storedVector, type StoredVector } from 'switchboard/sdk/retrieval';

/**
 * Each collection's vectors in memory for brute-force cosine, as retrieval-sqlite does. Reloaded
 * when the collection's version moved: every commit moves it, on any gateway of the database.
 */
export class VectorCache {
  private readonly byCollection = new Map<string, { version: string; vectors: StoredVector[] }>();

  async load(db: pg.ClientBase, collection: string, version: string): Promise<StoredVector[]> {
    const cached = this.byCollection.get(collection);
    if (cached?.version === version) return cached.vectors;
    const { rows } = await db.query<{ rowid: string; vector: Buffer }>('SELECT rowid, vector FROM retrieval_docs WHERE collection = $1 AND vector IS NOT NULL ORDER BY rowid', [collection]);
    const vectors = rows.map((r) => storedVector(Number(r.rowid), r.vector));
    this.byCollection.set(collection, { version, vectors });
    return vectors;
  }
}
