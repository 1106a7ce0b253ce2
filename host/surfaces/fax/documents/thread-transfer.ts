/**
 * Bytes crossing to or from a document thread. A message clones the whole memory behind a view:
 * an upload's Buffer is a slice of a socket chunk or of the 8 KB allocation pool, so a one-page
 * PDF cost a clone of 8-64 KB each way. A copy of just the bytes, moved (transferred) instead of
 * cloned, costs one small copy and no clone.
 */
export function ownCopy(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** The memory of the byte arrays among `values` that own all of it (moved with the message; the sender's views are emptied). */
export function movableMemory(values: readonly unknown[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const v of values) {
    if (v instanceof Uint8Array && v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && v.byteLength > 0) out.add(v.buffer);
  }
  return [...out];
}
