import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { httpError, httpErrorWithStatus } from './error-catalogue.js';

/**
 * Answers a request the HTTP parser refused before any route ran (headers over the size
 * limit, a malformed request line) in the API's `{"detail", "code"}` shape; Node's default
 * answer has no body. Registered as the server's `clientError` listener.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? httpError('headers_too_large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? httpErrorWithStatus('malformed_request', 408, { reason: 'the request was not received in time' })
        : httpError('malformed_request', { reason: 'malformed HTTP request' });
  const status = error.status;
  const body = JSON.stringify({ detail: error.detail, code: error.code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
