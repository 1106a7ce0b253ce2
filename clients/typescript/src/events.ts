/** One server-sent event: its name (`message` when unnamed), its data (parsed when it is JSON) and id. */
export interface ServerEvent {
  event: string;
  data: unknown;
  id?: string;
}

/** True when the answer is a `text/event-stream`. */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/**
 * The events of a `text/event-stream` body as they arrive (comments and heartbeats skipped).
 * It ends with the stream; an abort of the request's signal rejects the pending read, and
 * leaving the loop early cancels the body (the connection is released).
 */
export async function* readEvents(response: Response): AsyncGenerator<ServerEvent, void, undefined> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let name = '';
  let data: string[] = [];
  let id: string | undefined;
  let finished = false;
  const dispatch = (): ServerEvent | undefined => {
    const event = data.length ? { event: name || 'message', data: parseData(data.join('\n')), ...(id !== undefined ? { id } : {}) } : undefined;
    name = '';
    data = [];
    return event;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A CR at the end of a chunk may be the first half of a CRLF: it waits for the next chunk.
      const held = !done && buffer.endsWith('\r') ? 1 : 0;
      const lines = buffer.slice(0, buffer.length - held).split(/\r\n|\r|\n/);
      buffer = lines.pop()! + (held ? '\r' : '');
      if (done && buffer) lines.push(buffer);
      for (const line of lines) {
        if (line === '') {
          const event = dispatch();
          if (event) yield event;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = text;
        else if (field === 'data') data.push(text);
        else if (field === 'id') id = text;
      }
      if (done) {
        // A last event without its blank line still counts (a server that ended abruptly).
        const event = dispatch();
        if (event) yield event;
        finished = true;
        return;
      }
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
