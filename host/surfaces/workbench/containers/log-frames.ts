/**
 * The engine's log stream of a container without a TTY is multiplexed: frames of an 8-byte
 * header (stream type, three zero bytes, payload length as big-endian uint32) and the payload.
 * Returns the payloads joined, in order; a truncated last frame keeps what arrived.
 */
export function demultiplexLogs(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    if (stream !== 0 && stream !== 1 && stream !== 2) break; // not a frame header: raw output
    const length = buffer.readUInt32BE(offset + 4);
    parts.push(buffer.subarray(offset + 8, Math.min(buffer.length, offset + 8 + length)));
    offset += 8 + length;
  }
  if (offset === 0) return buffer.toString('utf8');
  return Buffer.concat(parts).toString('utf8');
}
