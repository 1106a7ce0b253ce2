import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { connect } from 'node:net';
import { EarlyServer } from '../../../../host/platform/http/early-server.js';
import { until } from '../../../support/gateway.js';

// npm start binds the port before the gateway is built (host/main.ts): liveness answers at
// once, every other request waits for the gateway's app and is answered by it.

function send(port: number, method: string, path: string, body?: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: body ? { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('before the app opens: GET and HEAD /health answer 200 {"status":"ok"}', async () => {
  const early = await EarlyServer.listen(0, '127.0.0.1');
  try {
    const get = await send(early.address.port, 'GET', '/health');
    assert.is(get.status, 200);
    assert.equal(JSON.parse(get.body), { status: 'ok' });
    assert.match(String(get.headers['content-type']), /^application\/json/);
    const head = await send(early.address.port, 'HEAD', '/health?probe=1');
    assert.is(head.status, 200);
    assert.is(head.body, '');
    assert.is(early.waitingCount, 0);
  } finally {
    early.server.close();
  }
});

test('before the app opens: a request the HTTP parser refuses gets the API\'s {"detail", "code"} answer', async () => {
  const early = await EarlyServer.listen(0, '127.0.0.1');
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(early.address.port, '127.0.0.1', () => socket.write('NOT A REQUEST\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { detail: 'malformed HTTP request', code: 'malformed_request' });
  } finally {
    early.server.close();
  }
});

test('a request arriving before the app opens waits, unanswered, and the app answers it with its whole body', async () => {
  const early = await EarlyServer.listen(0, '127.0.0.1');
  try {
    let answered = false;
    const pending = send(early.address.port, 'POST', '/fax', 'the body sent early').then((r) => ((answered = true), r));
    const ready = send(early.address.port, 'GET', '/health/ready').then((r) => ((answered = true), r));
    await until(() => early.waitingCount === 2, 10_000);
    // Liveness still answers while they wait.
    assert.is((await send(early.address.port, 'GET', '/health')).status, 200);
    assert.not.ok(answered, 'nothing answers a waiting request before the app opens');
    early.open((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => res.end(`${req.method} ${req.url} ${body}`));
    });
    assert.is((await pending).body, 'POST /fax the body sent early');
    assert.is((await ready).body, 'GET /health/ready ');
    assert.is(early.waitingCount, 0);
  } finally {
    early.server.close();
  }
});

test('once the app opens it answers every request, /health included', async () => {
  const early = await EarlyServer.listen(0, '127.0.0.1');
  try {
    early.open((req, res) => res.end(`app ${req.url}`));
    assert.is((await send(early.address.port, 'GET', '/health')).body, 'app /health');
    assert.is((await send(early.address.port, 'GET', '/fax/1')).body, 'app /fax/1');
    assert.throws(() => early.open(() => {}), /twice/);
  } finally {
    early.server.close();
  }
});

test('a taken port rejects listen', async () => {
  const first = await EarlyServer.listen(0, '127.0.0.1');
  try {
    const err = await EarlyServer.listen(first.address.port, '127.0.0.1').then(() => undefined, (e: NodeJS.ErrnoException) => e);
    assert.is(err?.code, 'EADDRINUSE');
  } finally {
    first.server.close();
  }
});

test.run();
