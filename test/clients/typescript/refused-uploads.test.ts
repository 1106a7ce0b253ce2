import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ApiError } from '../../../clients/typescript/src/index.js';
import { removeDir, tempDir } from '../../support/gateway.js';
import { gatewayForSuite, SUITE_KEY as KEY } from './client-suite.js';

/**
 * A body over a limit, or of the wrong type, is answered 413/415 with the API's detail in a way
 * every kind of client reads: the gateway reads and discards the rest of the body (up to
 * REFUSED_BODY_DISCARD_MB) and answers with Connection: close, instead of closing the socket
 * while the client still sends (Node's fetch then says "fetch failed", Python requests a reset).
 * The bodies are several MB, far over what the sockets' buffers hide.
 */
const NUMBER = '+15550108888';
const DISCARD_MB = 32;
const suite = gatewayForSuite(test, { MAX_FILE_SIZE_MB: '1', REFUSED_BODY_DISCARD_MB: String(DISCARD_MB) });
const run = promisify(execFile);
const hasRequests = spawnSync('python3', ['-c', 'import requests']).status === 0;

let work: string;
let bigFile: string;
const big = randomBytes(8 * 1024 * 1024);

test.before(() => {
  work = tempDir('switchboard-refused-');
  bigFile = path.join(work, 'big.bin');
  writeFileSync(bigFile, big);
});
test.after(() => {
  if (work) removeDir(work);
});

test('Node fetch (the typed client): an 8 MB upload over the 1 MB limit is ApiError 413 with its detail', async () => {
  const error = await suite
    .client()
    .prepareFax({ to: NUMBER, file: big, filename: 'big.pdf' })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.instance(error, ApiError, String(error));
  assert.equal([(error as ApiError).status, (error as ApiError).code], [413, 'payload_too_large']);
  assert.match((error as ApiError).detail, /1 MB/);
});

test('curl: the same upload reads 413 with the JSON detail', async () => {
  const { stdout } = await run('curl', ['-sS', '-w', '\n%{http_code}', '-H', `X-API-Key: ${KEY}`, '-F', `to=${NUMBER}`, '-F', `file=@${bigFile};filename=big.pdf`, `${suite.gw.url}/fax/prepare`]);
  const [body, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
  assert.is(status, '413');
  assert.is(JSON.parse(body).code, 'payload_too_large');
});

test(`python3 ${hasRequests ? 'requests' : 'http.client (requests is not installed)'}: the same upload reads 413 with the JSON detail`, async () => {
  const script = hasRequests
    ? `import requests, sys
r = requests.post(sys.argv[1] + '/fax/prepare', headers={'X-API-Key': sys.argv[2]}, data={'to': sys.argv[3]}, files={'file': ('big.pdf', open(sys.argv[4], 'rb'))})
print(r.status_code); print(r.json()['code'])`
    : `import http.client, sys, urllib.parse, uuid
u = urllib.parse.urlsplit(sys.argv[1]); b = uuid.uuid4().hex
body = (f'--{b}\\r\\nContent-Disposition: form-data; name="to"\\r\\n\\r\\n{sys.argv[3]}\\r\\n--{b}\\r\\nContent-Disposition: form-data; name="file"; filename="big.pdf"\\r\\n\\r\\n').encode() + open(sys.argv[4], 'rb').read() + f'\\r\\n--{b}--\\r\\n'.encode()
c = http.client.HTTPConnection(u.hostname, u.port); c.request('POST', '/fax/prepare', body, {'X-API-Key': sys.argv[2], 'Content-Type': f'multipart/form-data; boundary={b}'})
import json; r = c.getresponse(); print(r.status); print(json.loads(r.read())['code'])`;
  const { stdout } = await run('python3', ['-c', script, suite.gw.url, KEY, NUMBER, bigFile]);
  assert.equal(stdout.trim().split('\n'), ['413', 'payload_too_large']);
});

test('Node fetch: a JSON body over 1 MB is 413, a 4 MB text/plain body to a JSON route 415, a 17 MB MCP message 413, each with its code', async () => {
  const post = (p: string, type: string, body: string) => fetch(`${suite.gw.url}${p}`, { method: 'POST', headers: { 'X-API-Key': KEY, 'content-type': type, accept: 'application/json, text/event-stream' }, body });
  const json = await post('/admin/api-keys', 'application/json', JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024), scopes: ['fax:send'] }));
  assert.equal([json.status, (await json.json()).code], [413, 'payload_too_large']);
  const text = await post('/admin/api-keys', 'text/plain', 'y'.repeat(4 * 1024 * 1024));
  assert.equal([text.status, (await text.json()).code], [415, 'unsupported_media_type']);
  const mcp = await post('/mcp', 'application/json', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'z'.repeat(17 * 1024 * 1024) } }));
  assert.equal([mcp.status, (await mcp.json()).code], [413, 'payload_too_large']);
});

test('past REFUSED_BODY_DISCARD_MB the gateway stops reading and cuts the connection', async () => {
  const url = new URL(suite.gw.url);
  const declared = 256 * 1024 * 1024;
  const written = await new Promise<number>((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let sent = 0;
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const done = () => resolve(sent);
    socket.once('error', done);
    socket.once('close', done);
    socket.once('connect', () => {
      socket.write(`POST /fax/prepare HTTP/1.1\r\nHost: ${url.host}\r\nX-API-Key: ${KEY}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${declared}\r\n\r\n`);
      const pump = () => {
        while (sent < declared) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
  });
  assert.ok(written < declared, `the whole ${declared} bytes were taken`);
  assert.ok(written > DISCARD_MB * 1024 * 1024, `cut after ${written} bytes, before the ${DISCARD_MB} MB it discards`);
});

test.run();
