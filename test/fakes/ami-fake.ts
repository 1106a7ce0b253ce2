import net from 'node:net';
import { stat } from 'node:fs/promises';
import sharp from 'sharp';

/**
 * A loopback Asterisk Manager Interface: the banner, CRLF packets, Login, Ping, Logoff and
 * Originate as Asterisk answers them, and the events a `[faxout]` dialplan produces. It checks
 * every packet it receives and records it; protocol mistakes land in `protocolErrors`.
 */

/** What the next Originate does (a queue; the default answers and faxes successfully). */
export type OriginateScript =
  /** Answered; SendFAX runs and the dialplan reports UserEvent FaxResult. Pages default to the TIFF's. */
  | { kind: 'fax'; status?: 'SUCCESS' | 'FAILED'; pages?: number; error?: string; delayMs?: number }
  /** Not answered: OriginateResponse Failure with this Reason (5 busy, 3 no answer, 8 congestion). */
  | { kind: 'fail'; reason: number }
  /** Accepted, then the AMI connection drops before any result. */
  | { kind: 'drop-after-accept' }
  /** The connection drops before the Originate's response. */
  | { kind: 'drop-before-reply' }
  /** Accepted, and then nothing ever comes. */
  | { kind: 'silent' }
  /** Response: Error with this message. */
  | { kind: 'refuse'; message: string };

export interface AmiAction {
  connection: number;
  /** The packet's lines as received. */
  fields: Array<[string, string]>;
  raw: string;
  get(key: string): string | undefined;
}

export interface AmiFakeOptions {
  username?: string;
  secret?: string;
  version?: string;
}

interface Session {
  id: number;
  socket: net.Socket;
  loggedIn: boolean;
  actionIds: Set<string>;
  buffer: string;
}

export class AmiFake {
  readonly actions: AmiAction[] = [];
  readonly protocolErrors: string[] = [];
  /** Originate variables as Asterisk would parse them, per Originate received. */
  readonly originates: Array<{ action: AmiAction; variables: Record<string, string> }> = [];
  connections = 0;
  successfulLogins = 0;
  failedLogins = 0;
  private readonly sessions = new Set<Session>();
  private readonly scripts: OriginateScript[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private uniqueId = 1_700_000_000;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly options: Required<AmiFakeOptions>,
  ) {}

  static async start(options: AmiFakeOptions = {}): Promise<AmiFake> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const fake = new AmiFake(server, port, { username: 'switchboard', secret: 'amisecret', version: '9.0.0', ...options });
    server.on('connection', (socket) => fake.accept(socket));
    return fake;
  }

  /** Queues what the next Originate does. */
  script(...scripts: OriginateScript[]): void {
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

  actionsNamed(name: string): AmiAction[] {
    return this.actions.filter((a) => a.get('Action')?.toLowerCase() === name.toLowerCase());
  }

  /** Resolves once `predicate` holds (checked every 10 ms). */
  async waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`AMI fake: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Drops every connection, as an Asterisk restart or a network cut would. */
  dropAll(): void {
    for (const session of this.sessions) session.socket.destroy();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    const session: Session = { id: ++this.connections, socket, loggedIn: false, actionIds: new Set(), buffer: '' };
    this.sessions.add(session);
    socket.setEncoding('utf8');
    socket.on('close', () => this.sessions.delete(session));
    socket.on('error', () => undefined);
    socket.write(`Asterisk Call Manager/${this.options.version}\r\n`);
    socket.on('data', (chunk: string) => {
      session.buffer += chunk;
      for (;;) {
        const end = session.buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (session.buffer.includes('\n\n')) {
            this.protocolErrors.push(`lines not ended by CRLF: ${JSON.stringify(session.buffer)}`);
            session.buffer = '';
          }
          break;
        }
        const raw = session.buffer.slice(0, end + 4);
        session.buffer = session.buffer.slice(end + 4);
        void this.handle(session, raw);
      }
    });
  }

  private parse(session: Session, raw: string): AmiAction | null {
    const body = raw.slice(0, -4);
    const fields: Array<[string, string]> = [];
    for (const line of body.split('\r\n')) {
      const m = /^([A-Za-z0-9_-]+): (.*)$/.exec(line);
      if (!m || /[\r\n]/.test(line)) {
        this.protocolErrors.push(`malformed line ${JSON.stringify(line)} in ${JSON.stringify(raw)}`);
        return null;
      }
      fields.push([m[1]!, m[2]!]);
    }
    const get = (key: string) => fields.find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
    return { connection: session.id, fields, raw, get };
  }

  private send(session: Session, fields: Array<[string, string | number]>): void {
    if (session.socket.destroyed) return;
    session.socket.write(fields.map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n');
  }

  private broadcast(fields: Array<[string, string | number]>): void {
    for (const session of this.sessions) if (session.loggedIn) this.send(session, fields);
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private async handle(session: Session, raw: string): Promise<void> {
    const action = this.parse(session, raw);
    if (!action) return;
    this.actions.push(action);
    const name = action.get('Action');
    const actionId = action.get('ActionID');
    const reply = (response: string, extra: Array<[string, string | number]> = []) =>
      this.send(session, [['Response', response], ...(actionId ? ([['ActionID', actionId]] as Array<[string, string]>) : []), ...extra]);
    if (!name) {
      this.protocolErrors.push(`packet without Action: ${JSON.stringify(raw)}`);
      return reply('Error', [['Message', 'Missing action in request']]);
    }
    if (action.fields[0]![0] !== 'Action') this.protocolErrors.push(`Action is not the first line: ${JSON.stringify(raw)}`);
    if (!actionId) this.protocolErrors.push(`${name} without ActionID`);
    else if (session.actionIds.has(actionId)) this.protocolErrors.push(`ActionID ${actionId} reused on one connection`);
    if (actionId) session.actionIds.add(actionId);

    if (name === 'Login') {
      const ok = action.get('Username') === this.options.username && action.get('Secret') === this.options.secret;
      if (!ok) {
        this.failedLogins++;
        reply('Error', [['Message', 'Authentication failed']]);
        session.socket.end();
        return;
      }
      this.successfulLogins++;
      session.loggedIn = true;
      reply('Success', [['Message', 'Authentication accepted']]);
      this.send(session, [['Event', 'FullyBooted'], ['Privilege', 'system,all'], ['Uptime', 100], ['LastReload', 100], ['Status', 'Fully Booted']]);
      return;
    }
    if (!session.loggedIn) {
      this.protocolErrors.push(`${name} before Login`);
      return reply('Error', [['Message', 'Authentication Required']]);
    }
    switch (name) {
      case 'Ping':
        return reply('Success', [['Ping', 'Pong'], ['Timestamp', (Date.now() / 1000).toFixed(6)]]);
      case 'Logoff':
        reply('Goodbye', [['Message', 'Thanks for all the fish.']]);
        session.socket.end();
        return;
      case 'Originate':
        return this.originate(session, action, reply);
      default:
        this.protocolErrors.push(`unexpected action ${name}`);
        return reply('Error', [['Message', `Invalid/unknown command: ${name}. Use Action: ListCommands to show available commands.`]]);
    }
  }

  private async originate(session: Session, action: AmiAction, reply: (response: string, extra?: Array<[string, string | number]>) => void): Promise<void> {
    for (const key of ['Channel', 'Context', 'Exten', 'Priority', 'Async', 'Variable']) {
      if (!action.get(key)) this.protocolErrors.push(`Originate without ${key}`);
    }
    if (action.get('Async') !== 'true') this.protocolErrors.push(`Originate Async is ${action.get('Async')}, not true`);
    const variables = parseVariables(action.fields.filter(([k]) => k === 'Variable').map(([, v]) => v));
    for (const key of ['JOBID', 'DEST', 'FAXFILE']) if (!(key in variables)) this.protocolErrors.push(`Originate Variable without ${key}`);
    if (variables.DEST && !action.get('Channel')?.includes(variables.DEST)) this.protocolErrors.push('Originate Channel does not dial DEST');
    this.originates.push({ action, variables });

    const script = this.scripts.shift() ?? { kind: 'fax' };
    if (script.kind === 'drop-before-reply') {
      session.socket.destroy();
      return;
    }
    if (script.kind === 'refuse') return reply('Error', [['Message', script.message]]);
    reply('Success', [['Message', 'Originate successfully queued']]);
    const actionId = action.get('ActionID') ?? '';
    const channel = action.get('Channel') ?? '';
    const base = this.originateResponseBase(actionId, action, channel);
    switch (script.kind) {
      case 'drop-after-accept':
        this.later(20, () => this.dropAll());
        return;
      case 'silent':
        return;
      case 'fail':
        this.later(20, () => this.broadcast([...base.slice(0, 3), ['Response', 'Failure'], ...base.slice(3), ['Reason', script.reason], ['Uniqueid', '<null>']]));
        return;
      case 'fax': {
        const uniqueid = `${++this.uniqueId}.1`;
        this.later(10, () => this.broadcast([...base.slice(0, 3), ['Response', 'Success'], ...base.slice(3), ['Reason', 4], ['Uniqueid', uniqueid]]));
        // SendFAX opens the file the dialplan was given, as Asterisk would.
        const file = variables.FAXFILE ?? '';
        const readable = await stat(file).then((s) => s.isFile(), () => false);
        const pages = script.pages ?? (readable ? ((await sharp(file).metadata()).pages ?? 1) : 0);
        const status = readable ? (script.status ?? 'SUCCESS') : 'FAILED';
        const error = readable ? (script.error ?? (status === 'SUCCESS' ? '' : 'FAX_FAILED')) : 'File could not be opened.';
        this.later(script.delayMs ?? 40, () =>
          this.broadcast([
            ['Event', 'UserEvent'],
            ['Privilege', 'user,all'],
            ['Channel', `${channel.replace(/@.*$/, '')}-00000001;1`],
            ['ChannelState', 6],
            ['ChannelStateDesc', 'Up'],
            ['CallerIDNum', variables.DEST ?? ''],
            ['Context', action.get('Context') ?? ''],
            ['Exten', action.get('Exten') ?? ''],
            ['Priority', 4],
            ['Uniqueid', uniqueid],
            ['Linkedid', uniqueid],
            ['UserEvent', 'FaxResult'],
            ['JobID', variables.JOBID ?? ''],
            ['Status', status],
            ['Error', error],
            ['Pages', pages],
          ]),
        );
        return;
      }
    }
  }

  private originateResponseBase(actionId: string, action: AmiAction, channel: string): Array<[string, string | number]> {
    return [
      ['Event', 'OriginateResponse'],
      ['Privilege', 'call,all'],
      ['ActionID', actionId],
      ['Channel', channel],
      ['Context', action.get('Context') ?? ''],
      ['Exten', action.get('Exten') ?? ''],
      ['Application', ''],
      ['Data', ''],
      ['CallerIDNum', '<unknown>'],
      ['CallerIDName', '<unknown>'],
    ];
  }
}

/**
 * `Variable:` values split as Asterisk does (AST_STANDARD_APP_ARGS): at commas outside quotes
 * and parentheses, a backslash taking the next character literally, quotes removed.
 */
export function parseVariables(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const items: string[] = [];
    let current = '';
    let depth = 0;
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (c === '\\' && i + 1 < line.length) current += line[++i];
      else if (c === '"') quoted = !quoted;
      else if (c === '(' && !quoted) (depth++, (current += c));
      else if (c === ')' && !quoted) (depth && depth--, (current += c));
      else if (c === ',' && !quoted && depth === 0) (items.push(current), (current = ''));
      else current += c;
    }
    items.push(current);
    for (const item of items) {
      const eq = item.indexOf('=');
      if (eq > 0) out[item.slice(0, eq)] = item.slice(eq + 1);
    }
  }
  return out;
}
