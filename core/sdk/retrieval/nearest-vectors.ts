/** A stored chunk vector ready for cosine: its row, the float32 values and their norm. */
export interface StoredVector {
  rowid: number;
  vector: Float32Array;
  norm: number;
}

/** Decodes a vector stored as float32 bytes (as backends keep `RetrievalDocument.vector`). */
export function storedVector(rowid: number, bytes: Uint8Array): StoredVector {
  const vector = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  let sum = 0;
  for (const x of vector) sum += x * x;
  return { rowid, vector, norm: Math.sqrt(sum) || 1 };
}

/** The float32 bytes to store for a vector. */
export function vectorBytes(vector: number[]): Buffer {
  return Buffer.from(new Float32Array(vector).buffer);
}

/** Brute-force nearest vectors by cosine, best first (equal cosines: the lower row first); other dimensions are skipped. */
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
