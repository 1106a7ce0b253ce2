import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import type { AuditSink } from './audit-log.js';

/** Facility 10 (authpriv: security records), severity 6 (informational). */
const FACILITY = 10;
const SEVERITY = 6;
export const SYSLOG_PRI = FACILITY * 8 + SEVERITY;

export interface SyslogOptions {
  /** UDP host; must be a loopback address. Unset: the unix datagram socket. */
  host?: string | undefined;
  port: number;
  socket: string;
  onError: (message: string) => void;
}

/** `<PRI>1 TIMESTAMP HOST switchboard PID audit - <json>` (RFC 5424, no structured data). */
export function syslogLine(record: Record<string, unknown>, line: string): string {
  return `<${SYSLOG_PRI}>1 ${String(record.ts)} ${hostname() || '-'} switchboard ${process.pid} audit - ${line}`;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Sends audit records to syslog: UDP to a loopback address (records must not cross the
 * network in clear), or the local unix datagram socket. Node cannot write unix datagram
 * sockets itself, so that path goes through one long-lived util-linux `logger` process.
 */
export function createSyslogSink(options: SyslogOptions): AuditSink {
  if (options.host !== undefined) {
    if (!isLoopbackHost(options.host)) throw new Error(`AUDIT_SYSLOG_HOST must be a loopback address (got "${options.host}"); audit records are not sent over the network`);
    const host = options.host === 'localhost' ? '127.0.0.1' : options.host;
    const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    socket.unref();
    socket.on('error', (err) => options.onError(`syslog UDP: ${err.message}`));
    return {
      write: (record, line) =>
        new Promise<void>((resolve) => {
          socket.send(Buffer.from(syslogLine(record, line)), options.port, host, (err) => {
            if (err) options.onError(`syslog UDP: ${err.message}`);
            resolve();
          });
        }),
      close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
    };
  }
  let child: ChildProcess | undefined;
  let failed = false;
  const start = () => {
    const proc = spawn(
      'logger',
      ['--socket', options.socket, '--socket-errors=on', '--rfc5424=notq', '--tag', 'switchboard', `--id=${process.pid}`, '--msgid', 'audit', '--priority', 'authpriv.info'],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    proc.on('error', (err) => fail(`syslog: cannot run logger (${err.message})`));
    // Whole lines: a message read in two chunks must not be reported as two half messages.
    if (proc.stderr) createInterface({ input: proc.stderr }).on('line', (line) => options.onError(`syslog: ${line.trim()}`));
    proc.on('exit', (code) => {
      if (child === proc) child = undefined;
      // A logger that cannot reach the socket exits: stop rather than start one per record.
      if (code !== 0 && code !== null && !closed) fail(`syslog: logger exited with code ${code}`);
    });
    proc.stdin?.on('error', () => {});
    return proc;
  };
  let closed = false;
  const fail = (message: string) => {
    if (!failed) options.onError(message);
    failed = true;
  };
  return {
    write(_record, line) {
      if (failed || closed) return;
      child ??= start();
      child.stdin?.write(`${line}\n`);
    },
    close() {
      closed = true;
      const proc = child;
      child = undefined;
      if (!proc) return;
      return new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.stdin?.end();
        setTimeout(() => {
          proc.kill();
          resolve();
        }, 2000).unref();
      });
    },
  };
}
