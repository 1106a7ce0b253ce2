/** One Event Socket message: its outer headers and, when Content-Length says so, a body. */
export interface EslMessage {
  headers: Map<string, string>;
  body: string;
}

/** A `text/event-plain` event: URL-decoded headers and the event's own body, if any. */
export interface EslEvent {
  headers: Map<string, string>;
  body: string;
}

/**
 * Splits the ESL byte stream into messages: header lines ended by an empty line, then exactly
 * Content-Length bytes of body. Lengths are bytes, so the buffer stays binary until cut.
 */
export class EslStreamParser {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): EslMessage[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const messages: EslMessage[] = [];
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) break;
      const headers = parseHeaderLines(this.buffer.subarray(0, end).toString('utf8'), false);
      const length = Number(headers.get('Content-Length') ?? 0);
      if (!Number.isInteger(length) || length < 0) throw new Error(`bad Content-Length in ESL message: ${headers.get('Content-Length')}`);
      if (this.buffer.length < end + 2 + length) break;
      const body = this.buffer.subarray(end + 2, end + 2 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 2 + length);
      if (headers.size) messages.push({ headers, body });
    }
    return messages;
  }
}

/** Parses the body of a `text/event-plain` message. */
export function parsePlainEvent(text: string): EslEvent {
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const headers = parseHeaderLines(head, true);
  const length = Number(headers.get('Content-Length') ?? 0);
  const rest = end < 0 ? '' : text.slice(end + 2);
  const body = length > 0 ? Buffer.from(rest, 'utf8').subarray(0, length).toString('utf8') : '';
  return { headers, body };
}

function parseHeaderLines(block: string, urlEncoded: boolean): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon <= 0) continue;
    const key = line.slice(0, colon);
    const raw = line.slice(colon + 2).replace(/\r$/, '');
    headers.set(key, urlEncoded ? decode(raw) : raw);
  }
  return headers;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
