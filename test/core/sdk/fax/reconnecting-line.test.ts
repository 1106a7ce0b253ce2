import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { AuthError, NotReadyError, type PluginLogger } from 'switchboard/sdk';
import { LineNoReplyError, LineNotConnectedError, ReconnectingLine, ReplyWaiters, type LineHandshake } from 'switchboard/sdk/fax';

const logger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * A toy line protocol, enough to drive the base class: the server greets with `HELLO`, the
 * client answers `LOGIN <password>`, the server `OK` or `NO`; then `<id> <command>` lines get
 * `<id> <reply>` lines, and `EVENT <text>` lines are events.
 */
class ToyLine extends ReconnectingLine<string, string> {
  private next = 0;

  constructor(port: number, private readonly password: string, connectTimeoutMs = 2000) {
    super({ name: 'TOY', host: '127.0.0.1', port, connectTimeoutMs, reconnectInitialMs: 20, reconnectMaxMs: 40, logger });
  }

  async command(text: string, timeoutMs = 1000): Promise<string> {
    const socket = this.readySocket();
    const id = String(++this.next);
    const reply = this.replies.wait(timeoutMs, () => new Error(`no reply to ${text}`), { key: id });
    socket.write(`${id} ${text}\n`);
    return reply;
  }

  protected goodbye(): string {
    return 'BYE\n';
  }

  protected open(socket: net.Socket, handshake: LineHandshake): (chunk: Buffer) => void {
    let buffer = '';
    return (chunk) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line === 'HELLO') socket.write(`LOGIN ${this.password}\n`);
        else if (line === 'OK') handshake.ready();
        else if (line === 'NO') handshake.fail(new AuthError('password refused'));
        else if (line.startsWith('EVENT ')) this.deliver(line.slice(6));
        else {
          const space = line.indexOf(' ');
          this.replies.settle(line.slice(0, space), line.slice(space + 1));
        }
      }
    };
  }
}

/** The toy server: real TCP on loopback; records what it read, can drop every connection. */
class ToyServer {
  readonly lines: string[] = [];
  readonly sockets = new Set<net.Socket>();
  logins = 0;
  silent = false;
  private constructor(private readonly server: net.Server) {}

  static async start(password: string): Promise<ToyServer> {
    const toy: ToyServer = new ToyServer(net.createServer((socket) => toy.accept(socket, password)));
    await new Promise<void>((resolve) => toy.server.listen(0, '127.0.0.1', resolve));
    return toy;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  private accept(socket: net.Socket, password: string): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    if (this.silent) return;
    socket.write('HELLO\n');
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        this.lines.push(line);
        if (line.startsWith('LOGIN ')) {
          const ok = line.slice(6) === password;
          if (ok) this.logins++;
          socket.write(ok ? 'OK\n' : 'NO\n');
          if (!ok) socket.end();
        } else if (line === 'BYE') socket.end();
        else if (line.endsWith(' ping')) socket.write(`${line.split(' ')[0]} pong\nEVENT pinged\n`);
      }
    });
  }

  dropAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  close(): Promise<void> {
    this.dropAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), what);
};

test('connects, completes the handshake, matches replies by id and delivers events', async () => {
  const server = await ToyServer.start('pw');
  const line = new ToyLine(server.port, 'pw');
  try {
    const events: string[] = [];
    line.onEvent((event) => events.push(event));
    await line.connect();
    assert.ok(line.connected && line.ready);
    assert.is(await line.command('ping'), 'pong');
    await until('the event is delivered', () => events.includes('pinged'));
  } finally {
    await line.close();
    await server.close();
  }
});

test('refused credentials fail the connect with the protocol error; nothing reaches a closed port', async () => {
  const server = await ToyServer.start('pw');
  const port = server.port;
  try {
    const wrong = new ToyLine(port, 'nope');
    const err = await wrong.connect().then(() => undefined, (e: Error) => e);
    assert.instance(err, AuthError);
    assert.not.ok(wrong.ready);
    await wrong.close();
  } finally {
    await server.close();
  }
  const gone = new ToyLine(port, 'pw');
  const err = await gone.connect().then(() => undefined, (e: Error) => e);
  assert.instance(err, NotReadyError);
  assert.match(err!.message, /TOY at 127\.0\.0\.1:\d+ unreachable/);
  await gone.close();
});

test('a handshake that never completes fails at the deadline', async () => {
  const server = await ToyServer.start('pw');
  server.silent = true;
  const line = new ToyLine(server.port, 'pw', 150);
  try {
    const err = await line.connect().then(() => undefined, (e: Error) => e);
    assert.instance(err, NotReadyError);
    assert.match(err!.message, /not ready within 150 ms/);
  } finally {
    await line.close();
    await server.close();
  }
});

test('a lost session fails awaited replies, tells the listeners, and reconnects with a new handshake', async () => {
  const server = await ToyServer.start('pw');
  const line = new ToyLine(server.port, 'pw');
  try {
    const lost: string[] = [];
    let readies = 0;
    line.onConnectionLost((reason) => lost.push(reason));
    line.onReady(() => readies++);
    await line.connect();
    const waiting = line.command('never answered', 5000);
    server.dropAll();
    const err = await waiting.then(() => undefined, (e: Error) => e);
    assert.instance(err, LineNoReplyError);
    assert.match(err!.message, /TOY connection lost before the reply/);
    assert.instance(await line.command('ping').catch((e: Error) => e), LineNotConnectedError, 'nothing is written while the line is down');
    await until('the loss is reported', () => lost.length === 1);
    assert.equal(lost, ['TOY connection lost']);
    await until('a new session is ready', () => readies === 2 && line.ready);
    assert.is(server.logins, 2);
    assert.is(await line.command('ping'), 'pong');
  } finally {
    await line.close();
    await server.close();
  }
});

test('close says goodbye, ends the session for good and never reconnects', async () => {
  const server = await ToyServer.start('pw');
  const line = new ToyLine(server.port, 'pw');
  try {
    let lost = 0;
    line.onConnectionLost(() => lost++);
    await line.connect();
    await line.close();
    assert.is(server.lines.at(-1), 'BYE');
    assert.not.ok(line.connected);
    await new Promise((r) => setTimeout(r, 100));
    assert.is(server.logins, 1);
    assert.is(lost, 0);
  } finally {
    await line.close();
    await server.close();
  }
});

test('reply waiters: by key, oldest first, each with its own time limit', async () => {
  const waiters = new ReplyWaiters<string>();
  const a = waiters.wait(1000, () => new Error('a timed out'), { key: 'a' });
  const first = waiters.wait(1000, () => new Error('first timed out'));
  const second = waiters.wait(1000, () => new Error('second timed out'));
  assert.ok(waiters.settle('a', 'A'));
  assert.not.ok(waiters.settle('a', 'again'), 'a key is settled once');
  assert.ok(waiters.settleOldest('1'));
  assert.ok(waiters.settleOldest('2'));
  assert.equal(await Promise.all([a, first, second]), ['A', '1', '2']);
  let timedOut = false;
  const late = waiters.wait(20, () => new Error('late'), { key: 'late', onTimeout: () => (timedOut = true) });
  assert.match((await late.then(() => undefined, (e: Error) => e))!.message, /late/);
  assert.ok(timedOut);
  assert.not.ok(waiters.settle('late', 'x'));
  const pending = waiters.wait(1000, () => new Error('x'));
  waiters.rejectAll(() => new Error('gone'));
  assert.match((await pending.then(() => undefined, (e: Error) => e))!.message, /gone/);
  assert.is(waiters.size, 0);
});

test.run();
