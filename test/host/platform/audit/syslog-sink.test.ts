import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, tempDir } from '../../../support/gateway.js';
import { createSyslogSink } from '../../../../host/platform/audit/syslog-sink.js';

// Every wait below is bounded and rejects with a message: a sink that cannot deliver fails the
// test quickly instead of leaving it hanging (this host has no /dev/log; each test brings its own
// receiving socket).
const WAIT_MS = 5000;

/** Lines arriving on a receiver, handed out in order; `next` rejects when none comes in time. */
class Inbox {
  private readonly lines: string[] = [];
  private waiter: ((line: string) => void) | undefined;
  push(line: string): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(line);
    } else this.lines.push(line);
  }
  next(what: string): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`no ${what} arrived within ${WAIT_MS} ms`));
      }, WAIT_MS);
      this.waiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }
  get pending(): number {
    return this.lines.length;
  }
}

const RFC5424 = (timestamp: string) => new RegExp(`^<86>1 ${timestamp} \\S+ switchboard ${process.pid} audit - \\{`);

test('audit records reach a loopback UDP syslog as RFC 5424 lines with numbers masked', async () => {
  const socket = dgram.createSocket('udp4');
  const inbox = new Inbox();
  socket.on('message', (m) => inbox.push(String(m)));
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const port = (socket.address() as AddressInfo).port;
  const gw = await startGateway({ AUDIT_LOG_ENABLED: 'true', AUDIT_LOG_SYSLOG: 'true', AUDIT_SYSLOG_HOST: '127.0.0.1', AUDIT_SYSLOG_PORT: String(port) });
  try {
    gw.gateway.audit.record('job_created', { job_id: 'j1', to: '+15559998888' });
    await gw.gateway.audit.flush();
    const line = await inbox.next('UDP datagram');
    assert.match(line, RFC5424('\\d{4}-\\d\\d-\\d\\dT\\S+Z'));
    const record = JSON.parse(line.slice(line.indexOf('{')));
    assert.is(record.event, 'job_created');
    assert.is(record.to, '***8888');
    assert.is(inbox.pending, 0, 'one record, one datagram');
  } finally {
    await gw.close();
    socket.close();
  }
});

test('a non-loopback UDP syslog host is refused', () => {
  assert.throws(() => createSyslogSink({ host: '192.0.2.10', port: 514, socket: '/dev/log', onError: () => {} }), /loopback/);
});

/**
 * A unix datagram socket bound by python3 (node cannot bind AF_UNIX SOCK_DGRAM): prints READY,
 * then each datagram as one JSON string per line.
 */
async function startUnixReceiver(socketPath: string): Promise<{ inbox: Inbox; stop(): Promise<void> }> {
  const script = [
    'import socket, sys, json',
    's = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)',
    's.bind(sys.argv[1])',
    'print("READY", flush=True)',
    'while True:',
    '    print(json.dumps(s.recv(65536).decode("utf-8", "replace")), flush=True)',
  ].join('\n');
  const child: ChildProcess = spawn('python3', ['-c', script, socketPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const inbox = new Inbox();
  const ready = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the python3 receiver exited (${code}) before binding ${socketPath}`)));
    createInterface({ input: child.stdout! }).on('line', (l) => (l === 'READY' ? resolve() : inbox.push(JSON.parse(l) as string)));
  });
  const bounded = new Promise<void>((_, reject) => setTimeout(() => reject(new Error('the python3 receiver did not bind in time')), WAIT_MS).unref());
  await Promise.race([ready, bounded]);
  return {
    inbox,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

test('prerequisites of the unix-socket path are installed (util-linux logger, python3)', () => {
  assert.is(spawnSync('logger', ['--version']).status, 0, 'util-linux `logger` is missing: apt-get install -y bsdutils');
  assert.is(spawnSync('python3', ['--version']).status, 0, 'python3 is missing');
});

test('audit records reach a unix datagram syslog socket through logger', async () => {
  const dir = tempDir('switchboard-syslog-');
  const socketPath = path.join(dir, 'log');
  const receiver = await startUnixReceiver(socketPath);
  const gw = await startGateway({ AUDIT_LOG_ENABLED: 'true', AUDIT_LOG_SYSLOG: 'true', AUDIT_SYSLOG_SOCKET: socketPath });
  try {
    gw.gateway.audit.record('job_created', { job_id: 'u1', to: '+15557776666' });
    gw.gateway.audit.record('job_failed', { job_id: 'u1', error: 'busy' });
    await gw.gateway.audit.flush();
    const first = await receiver.inbox.next('unix datagram');
    const second = await receiver.inbox.next('second unix datagram');
    // logger writes its own RFC 5424 header (with a numeric offset), the record follows it.
    assert.match(first, RFC5424('\\d{4}-\\d\\d-\\d\\dT\\S+'));
    const a = JSON.parse(first.slice(first.indexOf('{')));
    assert.is(a.event, 'job_created');
    assert.is(a.to, '***6666');
    assert.is(JSON.parse(second.slice(second.indexOf('{'))).event, 'job_failed');
  } finally {
    await gw.close();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a unix socket nobody listens on fails fast through onError; writes never block', async () => {
  const dir = tempDir('switchboard-syslog-');
  const errors: string[] = [];
  let reported!: () => void;
  const failed = new Promise<void>((r) => (reported = r));
  const sink = createSyslogSink({
    port: 514,
    socket: path.join(dir, 'nobody-listens'),
    onError: (m) => {
      errors.push(m);
      if (/nobody-listens|logger exited/.test(m)) reported();
    },
  });
  try {
    await sink.write({ ts: new Date().toISOString() }, '{"event":"x"}');
    await Promise.race([failed, new Promise((_, reject) => setTimeout(() => reject(new Error(`the sink did not report the missing socket: ${errors.join(' | ')}`)), WAIT_MS).unref())]);
    // After the failure, writes return at once and close does not wait for anything.
    assert.is(sink.write({ ts: new Date().toISOString() }, '{"event":"y"}'), undefined);
    await sink.close?.();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
