import type SQLite from 'better-sqlite3';

export interface StoredVector {
  rowid: number;
  vector: Float32Array;
  norm: number;
}

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
    this.vectors = rows.map((r) => {
      const vector = new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength));
      let sum = 0;
      for (const x of vector) sum += x * x;
      return { rowid: r.rowid, vector, norm: Math.sqrt(sum) || 1 };
    });
    this.version = version;
    return this.vectors;
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
  return scored.sort((a, b) => b.cosine - a.cosine).slice(0, k);
}
