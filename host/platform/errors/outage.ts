/**
 * Whether an error means a backing service (the database, the object store) cannot be reached
 * right now, rather than a fault of the request or of our code: such a request is answered 503
 * `service_unavailable` with Retry-After, and a retry may succeed once the service is back.
 */
export function isOutage(err: unknown): boolean {
  for (const e of causesOf(err)) {
    const { code, message, name, $fault, $metadata } = e as { code?: unknown; message?: unknown; name?: unknown; $fault?: unknown; $metadata?: { httpStatusCode?: unknown } };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code) || SQLITE_BUSY.has(code))) return true;
    if (typeof message === 'string' && CONNECTION_LOST.test(message)) return true;
    // The AWS SDK's errors: a server fault (5xx, SlowDown) or its own timeout.
    if ($fault === 'server' || (typeof $metadata?.httpStatusCode === 'number' && $metadata.httpStatusCode >= 500)) return true;
    if (name === 'TimeoutError' && $metadata !== undefined) return true;
  }
  return false;
}

/** Seconds a client should wait before retrying a request refused for an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

// Socket-level failures (node, undici) reaching a service.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT']);
// PostgreSQL SQLSTATEs: connection exceptions (08xxx), shutdown and start-up (57P01-57P03), too many connections.
const PG_UNAVAILABLE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
// better-sqlite3: the database stayed locked beyond busy_timeout.
const SQLITE_BUSY = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']);
// pg's messages when a connection is lost or cannot be had (they carry no code).
const CONNECTION_LOST = /Connection terminated|terminating connection|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Client was closed and is not queryable|the database system is (starting up|shutting down|in recovery mode)/i;

/** The error, its `cause` chain and an AggregateError's members (a connection tried on IPv4 and IPv6), bounded. */
function causesOf(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue = [err];
  while (queue.length && out.length < 10) {
    const e = queue.shift();
    if (!e || typeof e !== 'object') continue;
    out.push(e);
    const { cause, errors } = e as { cause?: unknown; errors?: unknown };
    if (cause) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return out;
}
