import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a running judge server says which port it took: DATA_DIR/judge-server/address.json. The
 * server writes it once listening and removes it when it stops; the plugin reads it on every call,
 * so a server that picked a free port is found without a setting in the gateway or a restart.
 */
export function serverAddressFile(dataDir: string): string {
  return path.join(dataDir, 'judge-server', 'address.json');
}

/** Written by the server once it listens: its port and process. */
export function writeServerAddress(dataDir: string, port: number, pid = process.pid): void {
  const file = serverAddressFile(dataDir);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ port, pid })}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Removed by the server when it stops, unless another server wrote it since. */
export function removeServerAddress(dataDir: string, pid = process.pid): void {
  if (readAddress(dataDir)?.pid === pid) rmSync(serverAddressFile(dataDir), { force: true });
}

/** The port of the judge server running for this data directory, if one is. */
export function runningServerPort(dataDir: string): number | undefined {
  const address = readAddress(dataDir);
  return address && processAlive(address.pid) ? address.port : undefined;
}

function readAddress(dataDir: string): { port: number; pid: number } | undefined {
  try {
    const parsed = JSON.parse(readFileSync(serverAddressFile(dataDir), 'utf8')) as { port?: unknown; pid?: unknown };
    return Number.isInteger(parsed.port) && Number.isInteger(parsed.pid) ? { port: parsed.port as number, pid: parsed.pid as number } : undefined;
  } catch {
    return undefined;
  }
}

/** A server killed without its cleanup leaves the file behind: its process is gone. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
