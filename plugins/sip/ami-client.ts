import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { AuthError, NotReadyError, type PluginLogger, ReconnectBackoff } from 'switchboard/sdk';
import { AmiPacket, AmiStreamParser, amiVersion, serializeAmiPacket } from './ami-packet.js';

export interface AmiClientOptions {
  host: string;
  port: number;
  username: string;
  secret: string;
  /** Gives up a connection attempt (TCP, banner, login) after this long. */
  connectTimeoutMs: number;
  /** A response not back within this long fails the action (and a missed Ping drops the link). */
  actionTimeoutMs: number;
  /** Keep-alive `Action: Ping` interval; 0 turns it off. */
  pingIntervalMs: number;
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  logger: PluginLogger;
}

export interface AmiState {
  connected: boolean;
  loggedIn: boolean;
  /** From the banner `Asterisk Call Manager/<version>`. */
  amiVersion: string | null;
}

/** The action could not be written: nothing reached Asterisk. */
export class AmiNotConnectedError extends Error {
  constructor(message = 'not connected to the Asterisk Manager Interface') {
    super(message);
    this.name = 'AmiNotConnectedError';
  }
}

/** The action was written but its response never came (connection lost or timed out). */
export class AmiNoResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AmiNoResponseError';
  }
}

interface Pending {
  resolve(packet: AmiPacket): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

type Fields = ReadonlyArray<readonly [string, string]>;

/**
 * An Asterisk Manager Interface session over TCP: logs in, correlates responses by ActionID,
 * dispatches events, pings to notice dead links, and after a loss reconnects with backoff and
 * logs in again until closed.
 */
export class AmiClient {
  private socket: net.Socket | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly eventListeners = new Set<(event: AmiPacket) => void>();
  private readonly lostListeners = new Set<(reason: string) => void>();
  private readonly loginListeners = new Set<() => void>();
  private readonly idPrefix = `sb-${randomBytes(4).toString('hex')}`;
  private nextId = 0;
  private pingTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly backoff: ReconnectBackoff;
  private closed = false;
  private current: AmiState = { connected: false, loggedIn: false, amiVersion: null };

  constructor(private readonly options: AmiClientOptions) {
    this.backoff = new ReconnectBackoff(options.reconnect.initialDelayMs, options.reconnect.maxDelayMs);
  }

  get state(): AmiState {
    return { ...this.current };
  }

  onEvent(listener: (event: AmiPacket) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Called when an established session is lost (not when close() ends it). */
  onConnectionLost(listener: (reason: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Called after every successful login, the first and each one after a reconnect. */
  onLoggedIn(listener: () => void): () => void {
    this.loginListeners.add(listener);
    return () => this.loginListeners.delete(listener);
  }

  /**
   * Connects and logs in once. Rejects with AuthError when the credentials are refused and
   * NotReadyError when Asterisk cannot be reached; later losses reconnect on their own.
   */
  async connect(): Promise<void> {
    await this.attempt();
  }

  /**
   * Sends an action with a fresh ActionID. `actionId` is known at once; `response` settles
   * with the reply. Throws AmiNotConnectedError synchronously when nothing could be written.
   */
  send(fields: Fields): { actionId: string; response: Promise<AmiPacket> } {
    const socket = this.socket;
    if (!socket || !this.current.loggedIn || socket.destroyed) throw new AmiNotConnectedError();
    return this.write(socket, fields);
  }

  /** Ends the session for good: no reconnect; pending actions fail. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    if (!this.current.loggedIn) {
      socket.destroy();
      return;
    }
    const gone = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // A polite goodbye; whatever Asterisk answers, the socket is closed right after.
    socket.end(serializeAmiPacket([['Action', 'Logoff'], ['ActionID', this.newActionId()]]));
    const force = setTimeout(() => socket.destroy(), 1000);
    await gone;
    clearTimeout(force);
  }

  private newActionId(): string {
    return `${this.idPrefix}-${++this.nextId}`;
  }

  private write(socket: net.Socket, fields: Fields): { actionId: string; response: Promise<AmiPacket> } {
    const actionId = this.newActionId();
    const action = fields.find(([k]) => k.toLowerCase() === 'action')?.[1] ?? '?';
    const packet = serializeAmiPacket([...fields.filter(([k]) => k.toLowerCase() === 'action'), ['ActionID', actionId], ...fields.filter(([k]) => k.toLowerCase() !== 'action')]);
    const response = new Promise<AmiPacket>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(actionId);
        reject(new AmiNoResponseError(`no response to ${action} within ${this.options.actionTimeoutMs} ms`));
      }, this.options.actionTimeoutMs);
      this.pending.set(actionId, { resolve, reject, timer });
    });
    socket.write(packet);
    return { actionId, response };
  }

  /** One connection attempt: TCP, banner, Login. The socket is kept only when all succeed. */
  private attempt(): Promise<void> {
    const { host, port, connectTimeoutMs } = this.options;
    return new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host, port });
      const parser = new AmiStreamParser();
      let settled = false;
      let loginSent = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        socket.destroy();
        if (this.socket === socket) {
          this.socket = undefined;
          this.current = { ...this.current, connected: false, loggedIn: false };
          this.rejectPending('the AMI connection attempt failed');
        }
        reject(err);
      };
      const deadline = setTimeout(() => fail(new NotReadyError(`AMI at ${host}:${port}: no login within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      socket.on('error', (err) => fail(new NotReadyError(`AMI at ${host}:${port} unreachable: ${err.message}`, { cause: err })));
      // Deferred so that a refusal Asterisk sends just before hanging up is read first.
      socket.on('close', () =>
        setImmediate(() => {
          if (!settled) fail(new NotReadyError(`AMI at ${host}:${port} closed the connection during login`));
          else this.onSocketClosed(socket);
        }),
      );
      socket.on('connect', () => {
        this.socket = socket;
        this.current = { connected: true, loggedIn: false, amiVersion: null };
      });
      socket.on('data', (chunk: Buffer) => {
        const packets = parser.push(chunk);
        if (!loginSent && parser.banner !== undefined) {
          const version = amiVersion(parser.banner);
          if (version === null) return fail(new NotReadyError(`${host}:${port} is not an Asterisk Manager Interface (banner "${parser.banner.slice(0, 60)}")`));
          this.current.amiVersion = version;
          loginSent = true;
          const { response } = this.write(socket, [
            ['Action', 'Login'],
            ['Username', this.options.username],
            ['Secret', this.options.secret],
          ]);
          response.then(
            (reply) => {
              if (settled) return;
              if (reply.get('Response') !== 'Success') {
                return fail(new AuthError(`AMI login as "${this.options.username}" refused: ${reply.get('Message') ?? 'no reason given'}`));
              }
              if (this.closed) return fail(new NotReadyError('the AMI client was closed'));
              settled = true;
              clearTimeout(deadline);
              this.current.loggedIn = true;
              this.backoff.reset();
              this.startPing(socket);
              this.options.logger.info('AMI logged in', { host, port, amiVersion: version });
              for (const listener of this.loginListeners) listener();
              resolve();
            },
            (err: Error) => fail(new NotReadyError(`AMI login got no answer: ${err.message}`)),
          );
        }
        for (const packet of packets) this.dispatch(packet);
      });
    });
  }

  private rejectPending(reason: string): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new AmiNoResponseError(reason));
      this.pending.delete(id);
    }
  }

  private dispatch(packet: AmiPacket): void {
    if (packet.get('Event') !== undefined) {
      for (const listener of this.eventListeners) {
        try {
          listener(packet);
        } catch (err) {
          this.options.logger.error('AMI event listener failed', { err });
        }
      }
      return;
    }
    const id = packet.get('ActionID');
    const waiting = id === undefined ? undefined : this.pending.get(id);
    if (!waiting || id === undefined) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve(packet);
  }

  private startPing(socket: net.Socket): void {
    if (this.options.pingIntervalMs <= 0) return;
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (socket.destroyed) return;
      this.write(socket, [['Action', 'Ping']]).response.catch((err: Error) => {
        if (!socket.destroyed) {
          this.options.logger.warn('AMI keep-alive failed; dropping the connection', { reason: err.message });
          socket.destroy();
        }
      });
    }, this.options.pingIntervalMs);
  }

  private onSocketClosed(socket: net.Socket): void {
    if (this.socket !== socket) return;
    const wasLoggedIn = this.current.loggedIn;
    this.socket = undefined;
    this.current = { ...this.current, connected: false, loggedIn: false };
    clearInterval(this.pingTimer);
    this.rejectPending('AMI connection lost before the response');
    if (this.closed) return;
    if (wasLoggedIn) {
      this.options.logger.warn('AMI connection lost; reconnecting');
      for (const listener of this.lostListeners) listener('AMI connection lost');
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = this.backoff.next();
    this.reconnectTimer = setTimeout(() => {
      this.attempt().catch((err: Error) => {
        this.options.logger.warn('AMI reconnect failed', { reason: err.message, retryInMs: this.backoff.peek() });
        this.scheduleReconnect();
      });
    }, delay);
  }
}
