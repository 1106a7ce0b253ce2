import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { json, removeDir, tempDir, until } from '../../../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../../../support/child-gateway.js';
import { freshPostgresDatabase } from '../../../support/pg.js';

/**
 * A corpus of malformed requests fired at every route of the live /openapi.json of a gateway
 * running as its own process. After each one: the process is alive, the answer is a 4xx with
 * JSON `{"detail"}`, and DATA_DIR/tmp holds no file. Exceptions, each a precise rule:
 * - a body sent with a GET (which takes none) may be ignored: any status below 500 is fine;
 * - a connection cut off mid-body gets no answer: only "alive" and "no temp file" are checked;
 * - a route whose backing service is not there answers 503 with {"detail"} before it reads the
 *   request: a provider webhook of a plugin that is not active (the target gateway configures no
 *   provider) and the container controls with no engine on the socket.
 * At the end no process fault (uncaught exception, unhandled rejection) was counted, so an
 * error that only the last-resort handler caught still fails this test.
 */

interface Route {
  method: string;
  /** The OpenAPI path, `/fax/{id}`. */
  path: string;
  params: string[];
  bodyTypes: string[];
  bodySchema?: Schema;
}
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; $ref?: string; anyOf?: Schema[]; oneOf?: Schema[] };

interface Attempt {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: Buffer | string;
  /** Sends the headers and this much of the body, then destroys the socket. */
  cutAfter?: number;
}
interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const MAX_FILE_MB = 1;
// The gateway the requests go to (SQLite first, then PostgreSQL, which refuses NUL in text).
let gateway: ChildGateway;
let dataDir: string;
let routes: Route[] = [];

function startTarget(env: Record<string, string> = {}): Promise<ChildGateway> {
  dataDir = tempDir();
  return startChildGateway({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), MAX_FILE_SIZE_MB: String(MAX_FILE_MB), FAX_DISABLED: 'true', ...env });
}

test.before(async () => {
  gateway = await startTarget();
  const doc = await json(await fetch(`${gateway.url}/openapi.json`));
  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
  for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const content = op.requestBody?.content ?? {};
      routes.push({
        method: method.toUpperCase(),
        path: p,
        params: (op.parameters ?? []).filter((x: any) => x.in === 'path').map((x: any) => x.name),
        bodyTypes: Object.keys(content),
        bodySchema: resolve(content['application/json']?.schema),
      });
    }
  }
});
test.after(async () => {
  await gateway?.kill('SIGKILL');
  removeDir(dataDir);
});

/**
 * One request on its own raw connection, kept alive as HTTP clients do. A raw socket, because
 * the gateway may answer early (413) and close while the body is still being written: like a
 * careful client, this one stops writing once the answer's head is in and reads that answer,
 * where a plain HTTP client would only report the reset.
 */
function send(attempt: Attempt): Promise<Answer | undefined> {
  const url = new URL(gateway.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const headers: Record<string, string | number> = { host: url.host, ...(attempt.headers ?? {}) };
    const body = attempt.body === undefined ? undefined : Buffer.from(attempt.body);
    const chunked = headers['transfer-encoding'] === 'chunked';
    if (body && !chunked && headers['content-length'] === undefined) headers['content-length'] = body.length;
    const head = `${attempt.method} ${attempt.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
    let received = Buffer.alloc(0);
    let answered = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(parseAnswer(received));
    };
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const answer = parseAnswer(received);
      answered ||= answer !== undefined;
      // A stream (log tail) after an ignored GET body never ends: its status is all that counts.
      if (answer && (answer.complete || (answer.status < 300 && answer.contentType.startsWith('text/event-stream')))) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    const pieces: Array<Buffer | string> = [head];
    if (body && attempt.cutAfter !== undefined) pieces.push(body.subarray(0, attempt.cutAfter));
    else if (body && !chunked) for (let at = 0; at < body.length; at += 16 * 1024) pieces.push(body.subarray(at, at + 16 * 1024));
    else if (body) {
      for (let at = 0; at < body.length; at += 16 * 1024) {
        const piece = body.subarray(at, at + 16 * 1024);
        pieces.push(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
      }
      pieces.push('0\r\n\r\n');
    }
    const writeNext = () => {
      if (done || answered) return;
      const piece = pieces.shift();
      if (piece === undefined) {
        if (attempt.cutAfter !== undefined) setTimeout(() => socket.destroy(), 50);
        return;
      }
      socket.write(piece, (err) => (err ? undefined : writeNext()));
    };
    writeNext();
  });
}

/** The answer in the bytes received so far; undefined before its head is complete. */
function parseAnswer(bytes: Buffer): (Answer & { complete: boolean }) | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const lines = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(lines[0]!.split(' ')[1]);
  const header = (name: string) => lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
  let rest = bytes.subarray(end + 4);
  let complete = false;
  if (header('transfer-encoding') === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const eol = rest.indexOf('\r\n');
      if (eol === -1) break;
      const size = parseInt(rest.subarray(0, eol).toString(), 16);
      if (size === 0) {
        complete = true;
        break;
      }
      if (rest.length < eol + 2 + size + 2) break;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      rest = rest.subarray(eol + 2 + size + 2);
    }
    return { status, contentType: header('content-type'), text: Buffer.concat(parts).toString('utf8'), complete };
  }
  const length = header('content-length');
  complete = length !== '' && rest.length >= Number(length);
  return { status, contentType: header('content-type'), text: rest.toString('utf8'), complete };
}

/** The route's path with its parameters filled in (`raw` is put in the URL as it is). */
function fill(route: Route, raw = 'nosuch'): string {
  let p = route.path;
  for (const name of route.params) p = p.replace(`{${name}}`, raw);
  return p;
}

/** A JSON object with every declared property of the wrong type. */
function wrongTypes(schema: Schema | undefined): unknown {
  if (!schema?.properties) return [1, 2, 3];
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    const types = [prop.type, ...(prop.anyOf ?? []).map((s) => s.type), ...(prop.oneOf ?? []).map((s) => s.type)].flat();
    out[key] = types.includes('string') ? { not: 'a string' } : 'not-of-this-type';
  }
  return out;
}

function multipart(parts: Array<{ name: string; filename?: string; data: string | Buffer }>, close = true): { boundary: string; body: Buffer } {
  const boundary = 'corpus-boundary-1234';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename ? 'Content-Type: application/pdf\r\n' : ''}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  else chunks.pop(); // cut inside the last part: no CRLF, no closing boundary
  return { boundary, body: Buffer.concat(chunks) };
}

const pdfStart = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n';
const truncated = multipart([{ name: 'to', data: '+15551234567' }, { name: 'file', filename: 'a.pdf', data: pdfStart.repeat(200) }], false);
const oversized = multipart([{ name: 'to', data: '+15551234567' }, { name: 'file', filename: 'a.pdf', data: Buffer.alloc(MAX_FILE_MB * 1024 * 1024 + 4096, 0x41) }]);
const hasBody = (r: Route) => r.bodyTypes.length > 0;
// Routes served by a plugin or an engine this target gateway does not have (see the rules above).
const WEBHOOK_ALIASES = ['/providera-callback', '/providerc-callback', '/providera-inbound', '/providerb-inbound', '/_internal/pbx/inbound', '/_internal/freeswitch/outbound_result'];
const backedByAbsentService = (r: Route) => r.path.startsWith('/webhooks/') || WEBHOOK_ALIASES.includes(r.path) || r.path.startsWith('/api/docker/');
const hasJsonBody = (r: Route) => r.bodyTypes.includes('application/json');

interface Case {
  name: string;
  applies: (r: Route) => boolean;
  attempt: (r: Route) => Attempt;
  /** Statuses other than 4xx this case allows, with the rule's reason in the case name. */
  allowBelow500?: boolean;
}

// Values for path parameters, as they appear in the URL.
const PARAM_VALUES = ['%00', 'a%00b', '%C3%A9t%C3%A9', '%E2%80%AE%F0%9F%98%80', '%FF%FE', '%ZZ', 'x'.repeat(3000), '..%2F..%2Fetc%2Fpasswd', '%0D%0ASet-Cookie:%20x'];

const cases: Case[] = [
  {
    name: 'truncated multipart (no closing boundary)',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': `multipart/form-data; boundary=${truncated.boundary}`, 'content-length': truncated.body.length }, body: truncated.body }),
  },
  {
    name: 'oversized multipart',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': `multipart/form-data; boundary=${oversized.boundary}`, 'content-length': oversized.body.length }, body: oversized.body }),
  },
  {
    name: 'oversized multipart without a content-length (chunked)',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': `multipart/form-data; boundary=${oversized.boundary}`, 'transfer-encoding': 'chunked' }, body: oversized.body }),
  },
  {
    name: 'multipart without a boundary',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'multipart/form-data' }, body: truncated.body }),
  },
  {
    name: 'wrong content type (text/plain)',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'text/plain' }, body: 'to=+15551234567' }),
  },
  {
    name: 'missing content type',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), body: '{"to":"+15551234567"}' }),
  },
  {
    name: 'invalid JSON',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'application/json' }, body: '{"settings": {"a": ' }),
  },
  {
    name: 'JSON with a NUL byte and broken UTF-8',
    applies: hasBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'application/json' }, body: Buffer.concat([Buffer.from('{"a":"x\u0000'), Buffer.from([0xff, 0xfe]), Buffer.from('"')]) }),
  },
  {
    name: 'JSON of the wrong types',
    applies: hasJsonBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'application/json' }, body: JSON.stringify(wrongTypes(r.bodySchema)) }),
  },
  {
    name: 'JSON that is not an object',
    applies: hasJsonBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'application/json' }, body: '"just a string"' }),
  },
  {
    name: 'oversized JSON',
    applies: hasJsonBody,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }) }),
  },
  {
    name: 'huge headers',
    // Refused by the HTTP parser before any route runs, so safe even on POST /admin/restart.
    applies: () => true,
    attempt: (r) => ({ method: r.method, path: fill(r), headers: { 'x-padding': 'p'.repeat(64 * 1024) } }),
  },
  {
    name: 'a body on a GET (rule: may be ignored, so any status below 500)',
    applies: (r) => r.method === 'GET',
    attempt: (r) => ({ method: 'GET', path: fill(r), headers: { 'content-type': 'application/json' }, body: '{"a":' }),
    allowBelow500: true,
  },
  ...PARAM_VALUES.map<Case>((value) => ({
    name: `path parameter ${value.length > 40 ? `${value.slice(0, 10)}… (${value.length} chars)` : value}`,
    applies: (r) => r.params.length > 0,
    attempt: (r) => ({ method: r.method, path: fill(r, value), ...(hasJsonBody(r) ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) }),
  })),
];

async function tmpFiles(): Promise<string[]> {
  try {
    return readdirSync(path.join(dataDir, 'tmp'));
  } catch {
    return [];
  }
}

async function assertAlive(context: string): Promise<void> {
  assert.ok(gateway.alive(), `the gateway process exited after ${context}:\n${gateway.output().slice(-3000)}`);
  const health = await fetch(`${gateway.url}/health`);
  assert.is(health.status, 200, `health after ${context}`);
}

test('the corpus covers every route of /openapi.json', () => {
  assert.ok(routes.length >= 40, `${routes.length} routes`);
  for (const r of routes) assert.ok(cases.some((c) => c.applies(r)), `no malformed request for ${r.method} ${r.path}`);
});

/** Fires the whole corpus at the current gateway; what went wrong, one line each. */
async function corpusProblems(): Promise<{ problems: string[]; sent: number }> {
  const problems: string[] = [];
  let sent = 0;
  for (const route of routes) {
    for (const c of cases) {
      if (!c.applies(route)) continue;
      const attempt = c.attempt(route);
      const context = `${c.name} → ${route.method} ${route.path}`;
      const answer = await send(attempt);
      sent++;
      await assertAlive(context);
      if (!answer) {
        problems.push(`${context}: no answer`);
        continue;
      }
      const ok = (c.allowBelow500 ? answer.status < 500 : answer.status >= 400 && answer.status < 500) || (answer.status === 503 && backedByAbsentService(route));
      if (!ok) problems.push(`${context}: status ${answer.status} ${answer.text.slice(0, 200)}`);
      else if (answer.status >= 400) {
        let detail: unknown;
        try {
          detail = JSON.parse(answer.text).detail;
        } catch {
          // reported below
        }
        if (!answer.contentType.startsWith('application/json') || typeof detail !== 'string' || !detail) {
          problems.push(`${context}: ${answer.status} without JSON {"detail"}: ${answer.contentType} ${answer.text.slice(0, 200)}`);
        }
      }
      const left = await tmpFiles();
      if (left.length) problems.push(`${context}: left ${left.join(', ')} in DATA_DIR/tmp`);
    }
  }
  return { problems, sent };
}

test('every malformed request gets a 4xx with {"detail"}, the process lives, no temp file is left', async () => {
  const { problems, sent } = await corpusProblems();
  assert.ok(sent > 200, `${sent} requests sent`);
  assert.equal(problems, [], problems.join('\n'));
});

test('a body cut off mid-way (connection closed) leaves the process alive, no temp file, no internal error', async () => {
  for (const route of routes.filter(hasBody)) {
    for (const cutAfter of [10, 200, truncated.body.length - 5]) {
      const headers = { 'content-type': route.bodyTypes[0]!.startsWith('multipart/') ? `multipart/form-data; boundary=${truncated.boundary}` : route.bodyTypes[0]!, 'content-length': truncated.body.length + 10_000 };
      const answer = await send({ method: route.method, path: fill(route), headers, body: truncated.body, cutAfter });
      const context = `${route.method} ${route.path} cut after ${cutAfter} bytes`;
      await assertAlive(context);
      // An early refusal (401, 404, 415...) may come back before the cut; never a 5xx (but the 503 of an absent backing service).
      assert.ok(!answer || answer.status < 500 || (answer.status === 503 && backedByAbsentService(route)), `${context}: ${answer?.status}`);
      await until(async () => (await tmpFiles()).length === 0, 5000);
    }
  }
  // A client that went away is not a server fault: nothing logged as one.
  const faults = gateway.output().split('\n').filter((l) => /"unhandled error"|"status":50[0-24-9]|"status":5[1-9]\d/.test(l));
  assert.equal(faults, [], faults.join('\n').slice(0, 2000));
});

test('no request needed the last-resort fault handler', async () => {
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  assert.match(metrics, /switchboard_process_faults_total\{kind="uncaught_exception"\} 0\b/);
  assert.match(metrics, /switchboard_process_faults_total\{kind="unhandled_rejection"\} 0\b/);
  assert.not.match(gateway.output(), /process fault/);
});

test('the same corpus against a gateway on PostgreSQL', async () => {
  const sqlite = { gateway, dataDir };
  const database = await freshPostgresDatabase();
  try {
    gateway = await startTarget({ DATABASE_URL: database.url });
    const { problems } = await corpusProblems();
    assert.equal(problems, [], problems.join('\n'));
  } finally {
    await gateway.kill('SIGKILL');
    removeDir(dataDir);
    ({ gateway, dataDir } = sqlite);
    await database.drop();
  }
});

test.run();
