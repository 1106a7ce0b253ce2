import type net from 'node:net';
import { AuthError, NotReadyError, type PluginLogger } from 'switchboard/sdk';
import { LineNoReplyError, ReconnectingLine, type LineHandshake } from 'switchboard/sdk/fax';
import { EslStreamParser, parsePlainEvent, type EslEvent, type EslMessage } from './esl-message.js';
import type { PbxbSettings } from './settings.js';

/** The session's settings (see settings.ts) and the events subscribed after every authentication. */
export type EslClientOptions = Pick<PbxbSettings, 'host' | 'port' | 'password' | 'connectTimeoutMs' | 'commandTimeoutMs' | 'reconnectInitialMs' | 'reconnectMaxMs'> & {
  /** `event plain <these>` is sent after every authentication. */
  events: string[];
  logger: PluginLogger;
};

export interface EslState {
  connected: boolean;
  authenticated: boolean;
}

/**
 * A FreeSWITCH inbound event-socket session on the SDK's reconnecting line: authenticates,
 * subscribes, and matches replies to commands in order (ESL has no ids).
 */
export class EslClient extends ReconnectingLine<EslEvent, EslMessage> {
  constructor(private readonly options: EslClientOptions) {
    super({ ...options, name: 'ESL' });
  }

  get state(): EslState {
    return { connected: this.connected, authenticated: this.ready };
  }

  /**
   * Sends one command line; resolves with its `command/reply` or `api/response` (FreeSWITCH
   * answers in order). Rejects with LineNotConnectedError when nothing could be written.
   */
  async command(line: string): Promise<EslMessage> {
    return this.write(this.readySocket(), line);
  }

  protected goodbye(): string {
    return 'exit\n\n';
  }

  protected open(socket: net.Socket, handshake: LineHandshake): (chunk: Buffer) => void {
    const parser = new EslStreamParser();
    let authSent = false;
    const events: EslEvent[] = [];
    return (chunk) => {
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
          this.authenticate(socket, handshake);
        } else if (type === 'command/reply' || type === 'api/response') {
          this.replies.settleOldest(message);
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
    };
  }

  private write(socket: net.Socket, line: string): Promise<EslMessage> {
    if (/[\r\n]/.test(line)) return Promise.reject(new TypeError('an ESL command is one line'));
    const verb = line.split(' ', 2).slice(0, line.startsWith('auth ') ? 1 : 2).join(' ');
    const timeoutMs = this.options.commandTimeoutMs;
    const reply = this.replies.wait(timeoutMs, () => new LineNoReplyError(`no reply to "${verb}" within ${timeoutMs} ms`), {
      // The reply may still come and be taken for the next command's: drop the link.
      onTimeout: () => socket.destroy(),
    });
    socket.write(`${line}\n\n`);
    return reply;
  }

  private authenticate(socket: net.Socket, handshake: LineHandshake): void {
    const fail = (what: string) => (err: Error) => handshake.fail(new NotReadyError(`${what} got no reply: ${err.message}`));
    this.write(socket, `auth ${this.options.password}`).then((reply) => {
      if (handshake.settled) return;
      const text = reply.headers.get('Reply-Text') ?? '';
      if (!text.startsWith('+OK')) return handshake.fail(new AuthError(`FreeSWITCH refused the event socket password: ${text || 'no reply text'}`));
      this.write(socket, `event plain ${this.options.events.join(' ')}`).then((subscribed) => {
        if (handshake.settled) return;
        const answer = subscribed.headers.get('Reply-Text') ?? '';
        if (!answer.startsWith('+OK')) return handshake.fail(new NotReadyError(`FreeSWITCH refused the event subscription: ${answer}`));
        this.options.logger.info('ESL authenticated and subscribed', { host: this.options.host, port: this.options.port });
        handshake.ready();
      }, fail('ESL event subscription'));
    }, fail('ESL authentication'));
  }
}
