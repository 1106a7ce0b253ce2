import net from 'node:net';
import { NotReadyError } from '../errors.js';
import type { PluginLogger } from '../plugin.js';
import { ReconnectBackoff } from './reconnect-backoff.js';
import { ReplyWaiters } from './reply-waiters.js';

export interface LineOptions {
  /** Names the session in messages and logs: `AMI`, `ESL`. */
  name: string;
  host: string;
  port: number;
  /** Gives up a connection attempt (TCP and handshake) after this long. */
  connectTimeoutMs: number;
  /** The first reconnect delay, doubled per failed attempt up to reconnectMaxMs (the pbxFaxSettings fields). */
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  logger: PluginLogger;
}

/** A command could not be written: no ready session, so nothing reached the PBX. */
export class LineNotConnectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LineNotConnectedError';
  }
}

/** A command was written but its reply never came (the session was lost, or the reply was late). */
export class LineNoReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LineNoReplyError';
  }
}

/** The handshake of one connection attempt, settled by the protocol. */
export interface LineHandshake {
  /** Logged in (subscribed, ...): the session is ready and the attempt succeeds. */
  ready(): void;
  /** The attempt failed (AuthError for refused credentials, NotReadyError otherwise). */
  fail(err: Error): void;
  readonly settled: boolean;
}

/**
 * A long-lived TCP session to a PBX (AMI, ESL): connect with a deadline, run the protocol's
 * handshake, deliver events, and after the loss of a ready session tell the listeners and
 * reconnect with backoff until closed. Subclasses speak the protocol; this class owns the socket
 * and the commands awaiting replies (`replies`), which fail with LineNoReplyError when the
 * session ends.
 */
export abstract class ReconnectingLine<E, R> {
  protected readonly replies = new ReplyWaiters<R>();
  private socket: net.Socket | undefined;
  private readonly backoff: ReconnectBackoff;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private connectedNow = false;
  private readyNow = false;
  private readonly eventListeners = new Set<(event: E) => void>();
  private readonly lostListeners = new Set<(reason: string) => void>();
  private readonly readyListeners = new Set<() => void>();

  protected constructor(protected readonly line: LineOptions) {
    this.backoff = new ReconnectBackoff(line.reconnectInitialMs, line.reconnectMaxMs);
  }

  /** Reads of one connection: the protocol's stream parser lives in the returned function. */
  protected abstract open(socket: net.Socket, handshake: LineHandshake): (chunk: Buffer) => void;
  /** What close() writes to a ready session before hanging up. */
  protected abstract goodbye(): string;
  /** Runs when a session becomes ready (start a keep-alive, say). */
  protected sessionReady(_socket: net.Socket): void {}
  /** Runs when a session ends, by loss or close. */
  protected sessionEnded(): void {}

  get connected(): boolean {
    return this.connectedNow;
  }

  get ready(): boolean {
    return this.readyNow;
  }

  /** The socket of the ready session; throws LineNotConnectedError when nothing can be written now. */
  protected readySocket(): net.Socket {
    const socket = this.socket;
    if (!socket || socket.destroyed || !this.readyNow) throw new LineNotConnectedError(`not connected to ${this.line.name} at ${this.line.host}:${this.line.port}`);
    return socket;
  }

  private rejectPending(reason: string): void {
    this.replies.rejectAll(() => new LineNoReplyError(reason));
  }

  onEvent(listener: (event: E) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Called when a ready session is lost (not when close() ends it). */
  onConnectionLost(listener: (reason: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Called after every successful handshake, the first and each one after a reconnect. */
  onReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /**
   * Connects and completes the handshake once: AuthError when the credentials are refused,
   * NotReadyError when the PBX cannot be reached. Later losses reconnect on their own.
   */
  async connect(): Promise<void> {
    await this.attempt();
  }

  /** Ends the session for good: no reconnect; awaited replies fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.sessionEnded();
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    if (!this.readyNow) {
      socket.destroy();
      return;
    }
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // A polite goodbye; whatever the PBX answers, the socket is closed right after.
    socket.end(this.goodbye());
    const force = setTimeout(() => socket.destroy(), 1000);
    await gone;
    clearTimeout(force);
    this.connectedNow = false;
    this.readyNow = false;
  }

  /** Hands an event to every listener; a failing listener is logged, the others still run. */
  protected deliver(event: E): void {
    for (const listener of this.eventListeners) {
      try {
        listener(event);
      } catch (err) {
        this.line.logger.error(`${this.line.name} event listener failed`, { err });
      }
    }
  }

  private attempt(): Promise<void> {
    const { name, host, port, connectTimeoutMs } = this.line;
    return new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host, port });
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        socket.destroy();
        if (this.socket === socket) {
          this.socket = undefined;
          this.connectedNow = false;
          this.readyNow = false;
          this.rejectPending(`the ${name} connection attempt failed`);
        }
        reject(err);
      };
      const handshake: LineHandshake = {
        get settled() {
          return settled;
        },
        fail,
        ready: () => {
          if (settled) return;
          if (this.closed) return fail(new NotReadyError(`the ${name} client was closed`));
          settled = true;
          clearTimeout(deadline);
          this.readyNow = true;
          this.backoff.reset();
          this.sessionReady(socket);
          for (const listener of this.readyListeners) listener();
          resolve();
        },
      };
      const deadline = setTimeout(() => fail(new NotReadyError(`${name} at ${host}:${port}: not ready within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      socket.on('error', (err) => fail(new NotReadyError(`${name} at ${host}:${port} unreachable: ${err.message}`, { cause: err })));
      // Deferred so that a refusal the PBX sends just before hanging up is read first.
      socket.on('close', () =>
        setImmediate(() => {
          if (!settled) fail(new NotReadyError(`${name} at ${host}:${port} closed the connection during the handshake`));
          else this.onSocketClosed(socket);
        }),
      );
      socket.on('connect', () => {
        this.socket = socket;
        this.connectedNow = true;
        this.readyNow = false;
      });
      const receive = this.open(socket, handshake);
      socket.on('data', (chunk: Buffer) => receive(chunk));
    });
  }

  private onSocketClosed(socket: net.Socket): void {
    if (this.socket !== socket) return;
    const wasReady = this.readyNow;
    this.socket = undefined;
    this.connectedNow = false;
    this.readyNow = false;
    this.sessionEnded();
    this.rejectPending(`${this.line.name} connection lost before the reply`);
    if (this.closed) return;
    if (wasReady) {
      this.line.logger.warn(`${this.line.name} connection lost; reconnecting`);
      for (const listener of this.lostListeners) listener(`${this.line.name} connection lost`);
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.backoff.next();
    this.reconnectTimer = setTimeout(() => {
      this.attempt().catch((err: Error) => {
        this.line.logger.warn(`${this.line.name} reconnect failed`, { reason: err.message, retryInMs: this.backoff.peek() });
        this.scheduleReconnect();
      });
    }, delay);
  }
}
