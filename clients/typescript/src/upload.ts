import { networkError } from './api-error.js';
import type { Transport } from './transport.js';

/** A multipart request whose upload is reported as it goes. */
export interface ProgressUpload {
  method: string;
  url: string;
  form: FormData;
  headers: Headers;
  signal?: AbortSignal;
  /** The fraction of the body sent so far, 0 to 1, increasing. */
  onProgress: (fraction: number) => void;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Sends a form with upload progress and resolves to the answer, whatever its status. fetch
 * reports no upload progress: a browser (without a fetch of the caller's) uses XMLHttpRequest;
 * elsewhere the encoded body streams through fetch in chunks, counted as fetch pulls them.
 */
export function sendWithProgress(transport: Transport, upload: ProgressUpload): Promise<Response> {
  if (!transport.ownFetch && typeof XMLHttpRequest === 'function') return viaXhr(upload);
  return viaStream(transport, upload);
}

async function viaStream(transport: Transport, { method, url, form, headers, signal, onProgress }: ProgressUpload): Promise<Response> {
  const encoded = new Response(form);
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  headers.set('content-type', encoded.headers.get('content-type')!);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= bytes.length) return controller.close();
        const end = Math.min(sent + CHUNK_BYTES, bytes.length);
        controller.enqueue(bytes.subarray(sent, end));
        sent = end;
        onProgress(sent / bytes.length);
      },
    },
    // Nothing read ahead: a chunk counts as sent when fetch takes it.
    { highWaterMark: 0 },
  );
  // A streamed request body needs half duplex (Node's fetch, Chromium); the DOM types do not know the option yet.
  const init: RequestInit & { duplex: 'half' } = { method, headers, body, duplex: 'half', ...(signal ? { signal } : {}) };
  return transport.send(new Request(url, init));
}

function viaXhr({ method, url, form, headers, signal, onProgress }: ProgressUpload): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.responseType = 'arraybuffer';
    headers.forEach((value, name) => xhr.setRequestHeader(name, value));
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
      resolve(new Response(empty ? null : (xhr.response as ArrayBuffer), { status: xhr.status, statusText: xhr.statusText, headers: responseHeaders(xhr.getAllResponseHeaders()) }));
    };
    xhr.onerror = () => reject(networkError(url, new Error('the upload failed (network error)')));
    xhr.onabort = () => reject(signal?.reason ?? new DOMException('The upload was aborted.', 'AbortError'));
    const abort = () => xhr.abort();
    signal?.addEventListener('abort', abort, { once: true });
    xhr.onloadend = () => signal?.removeEventListener('abort', abort);
    xhr.send(form);
  });
}

function responseHeaders(raw: string): Headers {
  const headers = new Headers();
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}
