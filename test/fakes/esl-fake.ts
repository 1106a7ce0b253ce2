import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import sharp from 'sharp';

/**
 * A loopback FreeSWITCH inbound event socket: `auth/request`, `auth`, `event plain`, `bgapi
 * originate` and `exit` as mod_event_socket answers them, and the events of a txfax call, sent
 * only to sessions subscribed to them. Every command is checked and recorded; mistakes land in
 * `protocolErrors`.
 */

/** What the next originate does (a queue; the default answers and faxes successfully). */
export type EslOriginateScript =
  /** Answered; txfax runs: spandsp::txfaxresult, then the hangup. Pages default to the TIFF's. */
  | { kind: 'fax'; success?: boolean; pages?: number; code?: number; text?: string; /** Wait for releaseHeld() before the call's events. */ hold?: boolean }
  /** Not answered: the channel hangs up with `cause`, then BACKGROUND_JOB `-ERR <cause>`. */
  | { kind: 'fail'; cause: string }
  /** Answered, then hung up with no txfaxresult. */
  | { kind: 'hangup'; cause: string }
  /** Job accepted, then the socket drops before any result. */
  | { kind: 'drop-after-accept' }
  /** The socket drops before the bgapi reply. */
  | { kind: 'drop-before-reply' }
  /** Job accepted, then nothing ever comes. */
  | { kind: 'silent' }
  /** The reply is this `-ERR ...` text. */
  | { kind: 'refuse'; replyText: string };

export interface EslOriginate {
  connection: number;
  command: string;
  variables: Record<string, string>;
  gateway: string;
  number: string;
  tiff: string;
  jobUuid: string;
}

interface Session {
  id: number;
  socket: net.Socket;
  authenticated: boolean;
  events: Set<string>;
  buffer: string;
}

const ORIGINATE = /^bgapi originate \{([^}]*)\}sofia\/gateway\/([A-Za-z0-9._-]+)\/(\+?\d+) &txfax\(([^()\s]+)\)$/;

export class EslFake {
  /** Every command line received, in order, with its connection. */
  readonly commands: Array<{ connection: number; line: string }> = [];
  readonly originates: EslOriginate[] = [];
  readonly protocolErrors: string[] = [];
  connections = 0;
  successfulAuths = 0;
  failedAuths = 0;
  private readonly sessions = new Set<Session>();
  private readonly scripts: EslOriginateScript[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly coreUuid = randomUUID();
  private readonly held: Array<() => void> = [];

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly password: string,
  ) {}

  static async start(options: { password?: string } = {}): Promise<EslFake> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const fake = new EslFake(server, port, options.password ?? 'ClueCon');
    server.on('connection', (socket) => fake.accept(socket));
    return fake;
  }

  /** Sends the events of every held call now. */
  releaseHeld(): void {
    for (const run of this.held.splice(0)) run();
  }

  script(...scripts: EslOriginateScript[]): void {
    this.scripts.push(...scripts);
  }

  get openConnections(): number {
    return this.sessions.size;
  }

  /** True while connection number `id` (1 for the first accepted) is open. */
  isOpen(id: number): boolean {
    for (const session of this.sessions) if (session.id === id) return true;
    return false;
  }

  async waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`ESL fake: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  dropAll(): void {
    for (const session of this.sessions) session.socket.destroy();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    const session: Session = { id: ++this.connections, socket, authenticated: false, events: new Set(), buffer: '' };
    this.sessions.add(session);
    socket.setEncoding('utf8');
    socket.on('close', () => this.sessions.delete(session));
    socket.on('error', () => undefined);
    socket.write('Content-Type: auth/request\n\n');
    socket.on('data', (chunk: string) => {
      session.buffer += chunk;
      for (;;) {
        const end = session.buffer.indexOf('\n\n');
        if (end < 0) break;
        const block = session.buffer.slice(0, end);
        session.buffer = session.buffer.slice(end + 2);
        void this.handle(session, block);
      }
    });
  }

  private reply(session: Session, text: string, extra: Array<[string, string]> = []): void {
    if (session.socket.destroyed) return;
    session.socket.write(`Content-Type: command/reply\n${extra.map(([k, v]) => `${k}: ${v}\n`).join('')}Reply-Text: ${text}\n\n`);
  }

  private disconnect(session: Session): void {
    const notice = 'Disconnected, goodbye.\nSee you at ClueCon! http://www.cluecon.com/\n';
    session.socket.end(`Content-Type: text/disconnect-notice\nContent-Length: ${Buffer.byteLength(notice)}\n\n${notice}`);
  }

  /** Sends an event, as `text/event-plain`, to every session subscribed to it. */
  private publish(name: string, headers: Array<[string, string | number]>, body?: string, subclass?: string): void {
    const all: Array<[string, string | number]> = [
      ['Event-Name', name],
      ...(subclass ? ([['Event-Subclass', subclass]] as Array<[string, string]>) : []),
      ['Core-UUID', this.coreUuid],
      ['FreeSWITCH-Hostname', 'pbx-b'],
      ['Event-Date-Timestamp', Date.now() * 1000],
      ...headers,
    ];
    let text = all.map(([k, v]) => `${k}: ${encodeURIComponent(String(v))}\n`).join('');
    text += body === undefined ? '\n' : `Content-Length: ${Buffer.byteLength(body)}\n\n${body}`;
    const message = `Content-Length: ${Buffer.byteLength(text)}\nContent-Type: text/event-plain\n\n${text}`;
    for (const session of this.sessions) {
      const wanted = session.events.has('ALL') || (subclass ? session.events.has('CUSTOM') && session.events.has(subclass) : session.events.has(name));
      if (session.authenticated && wanted && !session.socket.destroyed) session.socket.write(message);
    }
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private async handle(session: Session, block: string): Promise<void> {
    if (block.includes('\r')) this.protocolErrors.push(`carriage return in command ${JSON.stringify(block)}`);
    if (block.includes('\n')) this.protocolErrors.push(`command with header lines ${JSON.stringify(block)}`);
    const line = block.replace(/\r/g, '');
    this.commands.push({ connection: session.id, line });
    if (!session.authenticated) {
      if (!line.startsWith('auth ')) {
        this.protocolErrors.push(`"${line.split(' ')[0]}" before auth`);
        return this.reply(session, '-ERR command not found');
      }
      if (line.slice(5) !== this.password) {
        this.failedAuths++;
        this.reply(session, '-ERR invalid');
        this.disconnect(session);
        return;
      }
      this.successfulAuths++;
      session.authenticated = true;
      return this.reply(session, '+OK accepted');
    }
    if (line.startsWith('event plain ')) {
      for (const name of line.slice('event plain '.length).split(' ')) if (name) session.events.add(name);
      return this.reply(session, '+OK event listener enabled plain');
    }
    if (line === 'exit') {
      this.reply(session, '+OK bye');
      this.disconnect(session);
      return;
    }
    if (line.startsWith('bgapi originate ')) return this.originate(session, line);
    this.protocolErrors.push(`unexpected command ${JSON.stringify(line)}`);
    this.reply(session, '-ERR command not found');
  }

  private async originate(session: Session, line: string): Promise<void> {
    const m = ORIGINATE.exec(line);
    if (!m) {
      this.protocolErrors.push(`malformed originate ${JSON.stringify(line)}`);
      return this.reply(session, '-ERR invalid originate');
    }
    const variables = parseVariableBlock(m[1]!);
    if (!variables.fax_job_id) this.protocolErrors.push('originate without fax_job_id');
    for (const key of ['fax_enable_t38', 'fax_enable_t38_request']) {
      if (!['true', 'false'].includes(variables[key] ?? '')) this.protocolErrors.push(`originate ${key} is ${variables[key]}`);
    }
    const jobUuid = randomUUID();
    const originate: EslOriginate = { connection: session.id, command: line, variables, gateway: m[2]!, number: m[3]!, tiff: m[4]!, jobUuid };
    this.originates.push(originate);
    const script = this.scripts.shift() ?? { kind: 'fax' };
    if (script.kind === 'drop-before-reply') {
      session.socket.destroy();
      return;
    }
    if (script.kind === 'refuse') return this.reply(session, script.replyText);
    this.reply(session, `+OK Job-UUID: ${jobUuid}`, [['Job-UUID', jobUuid]]);

    const channelUuid = randomUUID();
    const channel: Array<[string, string]> = [
      ['Unique-ID', channelUuid],
      ['Channel-Name', `sofia/gateway/${originate.gateway}/${originate.number}`],
      ['Caller-Destination-Number', originate.number],
      ...Object.entries(variables).map(([k, v]) => [`variable_${k}`, v] as [string, string]),
    ];
    const backgroundJob = (body: string) =>
      this.publish('BACKGROUND_JOB', [['Job-UUID', jobUuid], ['Job-Command', 'originate'], ['Job-Command-Arg', line.slice('bgapi originate '.length)]], body);
    const hangup = (cause: string) => this.publish('CHANNEL_HANGUP_COMPLETE', [...channel, ['Hangup-Cause', cause], ['Answer-State', 'hangup']]);

    switch (script.kind) {
      case 'drop-after-accept':
        this.later(20, () => this.dropAll());
        return;
      case 'silent':
        return;
      case 'fail':
        this.later(10, () => hangup(script.cause));
        this.later(20, () => backgroundJob(`-ERR ${script.cause}\n`));
        return;
      case 'hangup':
        this.later(10, () => backgroundJob(`+OK ${channelUuid}\n`));
        this.later(30, () => hangup(script.cause));
        return;
      case 'fax': {
        const readable = await stat(originate.tiff).then((s) => s.isFile(), () => false);
        const total = readable ? ((await sharp(originate.tiff).metadata()).pages ?? 1) : 0;
        const success = readable && script.success !== false;
        const code = script.code ?? (success ? 0 : readable ? 49 : 2);
        const text = script.text ?? (success ? 'OK' : readable ? 'The call dropped prematurely' : 'Cannot open source TIFF file');
        const events = () => {
          this.later(10, () => backgroundJob(`+OK ${channelUuid}\n`));
          this.later(40, () =>
            this.publish(
              'CUSTOM',
              [
                ...channel,
                ['fax_success', success ? '1' : '0'],
                ['fax_result_code', code],
                ['fax_result_text', text],
                ['fax_ecm_used', 'on'],
                ['fax_local_station_id', variables.fax_ident ?? ''],
                ['fax_remote_station_id', 'REMOTE FAX'],
                ['fax_document_transferred_pages', script.pages ?? (success ? total : 0)],
                ['fax_document_total_pages', total],
                ['fax_image_resolution', '204x196'],
                ['fax_transfer_rate', 14400],
              ],
              undefined,
              'spandsp::txfaxresult',
            ),
          );
          this.later(60, () => hangup('NORMAL_CLEARING'));
        };
        if (script.hold) this.held.push(events);
        else events();
        return;
      }
    }
  }
}

/** `{a=1,b='x, y'}` as FreeSWITCH reads it: commas split, single quotes group. */
export function parseVariableBlock(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current = '';
  let quoted = false;
  const items: string[] = [];
  for (const c of block) {
    if (c === "'") quoted = !quoted;
    else if (c === ',' && !quoted) (items.push(current), (current = ''));
    else current += c;
  }
  items.push(current);
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq > 0) out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}
