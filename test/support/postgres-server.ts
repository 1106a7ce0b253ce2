// A throwaway PostgreSQL cluster of its own (npm test starts one shared by every test file): the
// newest server under /usr/lib/postgresql, owned by user postgres when we run as root, on a free
// loopback port, fsync off. For benchmarks, and for tests that take the database away (an outage
// stopped and started on the one server would break every other file running meanwhile).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './gateway.js';

export interface PostgresServer {
  url: string;
  /** Stops the server (fast shutdown: sessions are ended), keeping its data. */
  pause(): void;
  /** Starts it again on the same port and data. */
  resume(): void;
  /** Ends it and removes its directory. */
  stop(): void;
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const base = '/usr/lib/postgresql';
  const version = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)).find((v) => existsSync(path.join(base, v, 'bin', 'initdb'))) : undefined;
  if (!version) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const bin = path.join(base, version, 'bin');
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-own-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const run = (cmd: string, args: string[]) => {
    const asRoot = process.getuid?.() === 0;
    const r = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { encoding: 'utf8' }) : spawnSync(path.join(bin, cmd), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr} ${r.stdout}`);
  };
  const start = () => run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off`, 'start']);
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pause: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: start,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
