import net from 'node:net';
import { AuthError, NotReadyError, type PluginLogger, ReconnectBackoff } from 'switchboard/sdk';
import { EslStreamParser, parsePlainEvent, type EslEvent, type EslMessage } from './esl-message.js';

export interface EslClientOptions {
  host: string;
  port: number;
  password: string;
  /** `event plain <these>` is sent after every authentication. */
  events: string[];
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  logger: PluginLogger;
}

export interface EslState {
  connected: boolean;
  authenticated: boolean;
}

/** The command could not be written: nothing reached FreeSWITCH. */
export class EslNotConnectedError extends Error {
  constructor(message = 'not connected to the FreeSWITCH event socket') {
    super(message);
    this.name = 'EslNotConnectedError';
  }
}

/** The command was written but its reply never came (connection lost or timed out). */
export class EslNoReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EslNoReplyError';
  }
}

interface Pending {
  resolve(reply: EslMessage): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A FreeSWITCH inbound event-socket session: authenticates, subscribes, matches replies to
 * commands in order (ESL has no ids), delivers events, and reconnects with backoff after a loss.
 */
export class EslClient {
  private socket: net.Socket | undefined;
  /** Commands awaiting their reply, oldest first: FreeSWITCH answers in order. */
  private readonly pending: Pending[] = [];
  private readonly eventListeners = new Set<(event: EslEvent) => void>();
  private readonly lostListeners = new Set<(reason: string) => void>();
  private readonly backoff: ReconnectBackoff;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private current: EslState = { connected: false, authenticated: false };

  constructor(private readonly options: EslClientOptions) {
    this.backoff = new ReconnectBackoff(options.reconnect.initialDelayMs, options.reconnect.maxDelayMs);
  }

  get state(): EslState {
    return { ...this.current };
  }

  onEvent(listener: (event: EslEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Called when an established session is lost (not when close() ends it). */
  onConnectionLost(listener: (reason: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Connects, authenticates and subscribes once: AuthError on a refused password, else NotReadyError. */
  async connect(): Promise<void> {
    await this.attempt();
  }

  /** Sends one command line; resolves with its `command/reply` or `api/response`. */
  command(line: string): Promise<EslMessage> {
    const socket = this.socket;
    if (!socket || socket.destroyed || !this.current.authenticated) return Promise.reject(new EslNotConnectedError());
    return this.write(socket, line);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    if (!this.current.authenticated) {
      socket.destroy();
      return;
    }
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.end('exit\n\n');
    const force = setTimeout(() => socket.destroy(), 1000);
    await gone;
    clearTimeout(force);
  }

  private write(socket: net.Socket, line: string): Promise<EslMessage> {
    if (/[\r\n]/.test(line)) return Promise.reject(new TypeError('an ESL command is one line'));
    const verb = line.split(' ', 2).slice(0, line.startsWith('auth ') ? 1 : 2).join(' ');
    const reply = new Promise<EslMessage>((resolve, reject) => {
      const entry: Pending = {
        resolve,
        reject,
        timer: setTimeout(() => {
          // The reply may still come; it will be taken for this command's, so drop the link.
          const at = this.pending.indexOf(entry);
          if (at >= 0) this.pending.splice(at, 1);
          reject(new EslNoReplyError(`no reply to "${verb}" within ${this.options.commandTimeoutMs} ms`));
          socket.destroy();
        }, this.options.commandTimeoutMs),
      };
      this.pending.push(entry);
    });
    socket.write(`${line}\n\n`);
    return reply;
  }

  private attempt(): Promise<void> {
    const { host, port, connectTimeoutMs } = this.options;
    return new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host, port });
      const parser = new EslStreamParser();
      let settled = false;
      let authSent = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        socket.destroy();
        if (this.socket === socket) {
          this.socket = undefined;
          this.current = { connected: false, authenticated: false };
          this.rejectPending('the event socket connection attempt failed');
        }
        reject(err);
      };
      const deadline = setTimeout(() => fail(new NotReadyError(`ESL at ${host}:${port}: not ready within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      socket.on('error', (err) => fail(new NotReadyError(`ESL at ${host}:${port} unreachable: ${err.message}`, { cause: err })));
      socket.on('close', () =>
        setImmediate(() => {
          if (!settled) fail(new NotReadyError(`ESL at ${host}:${port} closed the connection during authentication`));
          else this.onSocketClosed(socket);
        }),
      );
      socket.on('connect', () => {
        this.socket = socket;
        this.current = { connected: true, authenticated: false };
      });
      const events: EslEvent[] = [];
      socket.on('data', (chunk: Buffer) => {
        let messages: EslMessage[];
        try {
          messages = parser.push(chunk);
        } catch (err) {
          socket.destroy(err as Error);
          return;
        }
        for (const message of messages) {
          const type = message.headers.get('Content-Type');
          if (type === 'auth/request' && !authSent) {
            authSent = true;
            this.write(socket, `auth ${this.options.password}`).then(
              (reply) => this.onAuthReply(reply, socket, () => settled, fail, () => {
                settled = true;
                clearTimeout(deadline);
                resolve();
              }),
              (err: Error) => fail(new NotReadyError(`ESL authentication got no reply: ${err.message}`)),
            );
          } else if (type === 'command/reply' || type === 'api/response') {
            const waiting = this.pending.shift();
            if (waiting) {
              clearTimeout(waiting.timer);
              waiting.resolve(message);
            }
          } else if (type === 'text/event-plain') {
            events.push(parsePlainEvent(message.body));
          } else if (type === 'text/disconnect-notice') {
            this.options.logger.debug('ESL disconnect notice received');
          }
        }
        // Events are delivered after the replies read with them have been handled, so a
        // reply's waiter learns (a Job-UUID, say) before the events that refer to it.
        if (events.length) {
          const batch = events.splice(0);
          setImmediate(() => {
            for (const event of batch) this.deliver(event);
          });
        }
      });
    });
  }

  private onAuthReply(reply: EslMessage, socket: net.Socket, isSettled: () => boolean, fail: (err: Error) => void, succeed: () => void): void {
    if (isSettled()) return;
    const text = reply.headers.get('Reply-Text') ?? '';
    if (!text.startsWith('+OK')) return fail(new AuthError(`FreeSWITCH refused the event socket password: ${text || 'no reply text'}`));
    this.write(socket, `event plain ${this.options.events.join(' ')}`).then(
      (subscribed) => {
        if (isSettled()) return;
        const answer = subscribed.headers.get('Reply-Text') ?? '';
        if (!answer.startsWith('+OK')) return fail(new NotReadyError(`FreeSWITCH refused the event subscription: ${answer}`));
        if (this.closed) return fail(new NotReadyError('the ESL client was closed'));
        this.current.authenticated = true;
        this.backoff.reset();
        this.options.logger.info('ESL authenticated and subscribed', { host: this.options.host, port: this.options.port });
        succeed();
      },
      (err: Error) => fail(new NotReadyError(`ESL event subscription got no reply: ${err.message}`)),
    );
  }

  private deliver(event: EslEvent): void {
    for (const listener of this.eventListeners) {
      try {
        listener(event);
      } catch (err) {
        this.options.logger.error('ESL event listener failed', { err });
      }
    }
  }

  private rejectPending(reason: string): void {
    for (const waiting of this.pending.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.reject(new EslNoReplyError(reason));
    }
  }

  private onSocketClosed(socket: net.Socket): void {
    if (this.socket !== socket) return;
    const wasAuthenticated = this.current.authenticated;
    this.socket = undefined;
    this.current = { connected: false, authenticated: false };
    this.rejectPending('ESL connection lost before the reply');
    if (this.closed) return;
    if (wasAuthenticated) {
      this.options.logger.warn('ESL connection lost; reconnecting');
      for (const listener of this.lostListeners) listener('ESL connection lost');
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.backoff.next();
    this.reconnectTimer = setTimeout(() => {
      this.attempt().catch((err: Error) => {
        this.options.logger.warn('ESL reconnect failed', { reason: err.message, retryInMs: this.backoff.peek() });
        this.scheduleReconnect();
      });
    }, delay);
  }
}
