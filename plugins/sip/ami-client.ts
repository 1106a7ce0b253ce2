import type net from 'node:net';
import { randomBytes } from 'node:crypto';
import { AuthError, NotReadyError, type PluginLogger } from 'switchboard/sdk';
import { LineNoReplyError, ReconnectingLine, type LineHandshake } from 'switchboard/sdk/fax';
import { AmiPacket, AmiStreamParser, amiVersion, serializeAmiPacket } from './ami-packet.js';
import type { SipSettings } from './settings.js';

/**
 * The session's settings (see settings.ts): a response not back within actionTimeoutMs fails the
 * action, and a missed keep-alive Ping (every pingIntervalMs; 0 is off) drops the link.
 */
export type AmiClientOptions = Pick<
  SipSettings,
  'host' | 'port' | 'connectTimeoutMs' | 'actionTimeoutMs' | 'pingIntervalMs' | 'reconnectInitialMs' | 'reconnectMaxMs'
> & { username: string; password: string; logger: PluginLogger };

export interface AmiState {
  connected: boolean;
  loggedIn: boolean;
  /** From the banner `Asterisk Call Manager/<version>`. */
  amiVersion: string | null;
}

type Fields = ReadonlyArray<readonly [string, string]>;

/**
 * An Asterisk Manager Interface session on the SDK's reconnecting line: logs in after the
 * banner, correlates responses by ActionID, dispatches events, and pings to notice dead links.
 */
export class AmiClient extends ReconnectingLine<AmiPacket, AmiPacket> {
  private readonly idPrefix = `sb-${randomBytes(4).toString('hex')}`;
  private nextId = 0;
  private pingTimer: NodeJS.Timeout | undefined;
  private version: string | null = null;

  constructor(private readonly options: AmiClientOptions) {
    super({ ...options, name: 'AMI' });
  }

  get state(): AmiState {
    return { connected: this.connected, loggedIn: this.ready, amiVersion: this.version };
  }

  /** Called after every successful login, the first and each one after a reconnect. */
  onLoggedIn(listener: () => void): () => void {
    return this.onReady(listener);
  }

  /**
   * Sends an action with a fresh ActionID. `actionId` is known at once; `response` settles
   * with the reply (LineNoReplyError when none comes). Throws LineNotConnectedError synchronously
   * when nothing could be written.
   */
  send(fields: Fields): { actionId: string; response: Promise<AmiPacket> } {
    return this.write(this.readySocket(), fields);
  }

  protected goodbye(): string {
    return serializeAmiPacket([['Action', 'Logoff'], ['ActionID', this.newActionId()]]);
  }

  protected override sessionReady(socket: net.Socket): void {
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

  protected override sessionEnded(): void {
    clearInterval(this.pingTimer);
  }

  protected open(socket: net.Socket, handshake: LineHandshake): (chunk: Buffer) => void {
    const parser = new AmiStreamParser();
    const { host, port } = this.options;
    let loginSent = false;
    this.version = null;
    return (chunk) => {
      const packets = parser.push(chunk);
      if (!loginSent && parser.banner !== undefined) {
        const version = amiVersion(parser.banner);
        if (version === null) return handshake.fail(new NotReadyError(`${host}:${port} is not an Asterisk Manager Interface (banner "${parser.banner.slice(0, 60)}")`));
        this.version = version;
        loginSent = true;
        this.login(socket, handshake, version);
      }
      for (const packet of packets) this.dispatch(packet);
    };
  }

  private login(socket: net.Socket, handshake: LineHandshake, version: string): void {
    const { response } = this.write(socket, [
      ['Action', 'Login'],
      ['Username', this.options.username],
      ['Secret', this.options.password],
    ]);
    response.then(
      (reply) => {
        if (handshake.settled) return;
        if (reply.get('Response') !== 'Success') {
          return handshake.fail(new AuthError(`AMI login as "${this.options.username}" refused: ${reply.get('Message') ?? 'no reason given'}`));
        }
        this.options.logger.info('AMI logged in', { host: this.options.host, port: this.options.port, amiVersion: version });
        handshake.ready();
      },
      (err: Error) => handshake.fail(new NotReadyError(`AMI login got no answer: ${err.message}`)),
    );
  }

  private newActionId(): string {
    return `${this.idPrefix}-${++this.nextId}`;
  }

  private write(socket: net.Socket, fields: Fields): { actionId: string; response: Promise<AmiPacket> } {
    const actionId = this.newActionId();
    const action = fields.find(([k]) => k.toLowerCase() === 'action')?.[1] ?? '?';
    const packet = serializeAmiPacket([...fields.filter(([k]) => k.toLowerCase() === 'action'), ['ActionID', actionId], ...fields.filter(([k]) => k.toLowerCase() !== 'action')]);
    const timeoutMs = this.options.actionTimeoutMs;
    const response = this.replies.wait(timeoutMs, () => new LineNoReplyError(`no response to ${action} within ${timeoutMs} ms`), { key: actionId });
    socket.write(packet);
    return { actionId, response };
  }

  private dispatch(packet: AmiPacket): void {
    if (packet.get('Event') !== undefined) return this.deliver(packet);
    const id = packet.get('ActionID');
    if (id !== undefined) this.replies.settle(id, packet);
  }
}
