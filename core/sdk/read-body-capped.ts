/** A response body was larger than the caller allows. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`response body over ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads a response body up to `maxBytes`, refusing (and cancelling) anything larger, so an
 * answer from a third party cannot make us hold an unbounded amount of memory.
 */
export async function readBodyCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > maxBytes) throw new BodyTooLargeError(maxBytes);
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    await response.body?.cancel().catch(() => {});
    throw err;
  }
  return Buffer.concat(chunks);
}
