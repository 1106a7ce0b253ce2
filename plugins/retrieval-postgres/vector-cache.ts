import type pg from 'pg';

export interface StoredVector {
  rowid: number;
  vector: Float32Array;
  norm: number;
}

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
    const vectors = rows.map((r) => {
      const vector = new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength));
      let sum = 0;
      for (const x of vector) sum += x * x;
      return { rowid: Number(r.rowid), vector, norm: Math.sqrt(sum) || 1 };
    });
    this.byCollection.set(collection, { version, vectors });
    return vectors;
  }
}

export function cosineTopK(vectors: StoredVector[], query: number[], k: number): Array<{ rowid: number; cosine: number }> {
  let qn = 0;
  for (const x of query) qn += x * x;
  qn = Math.sqrt(qn) || 1;
  const scored: Array<{ rowid: number; cosine: number }> = [];
  for (const v of vectors) {
    if (v.vector.length !== query.length) continue;
    let dot = 0;
    for (let i = 0; i < query.length; i++) dot += v.vector[i]! * query[i]!;
    scored.push({ rowid: v.rowid, cosine: dot / (v.norm * qn) });
  }
  return scored.sort((a, b) => b.cosine - a.cosine || a.rowid - b.rowid).slice(0, k);
}
