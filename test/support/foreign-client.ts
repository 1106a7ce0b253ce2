import { execFileSync, spawn, spawnSync } from 'node:child_process';

/**
 * A caller that is not on loopback, made by the test itself: a network namespace joined to this
 * one by a veth pair with a private /30 that exists only on this machine. The gateway listens on
 * 0.0.0.0 and sees requests from `clientAddress`, so its loopback checks run for real whatever
 * interfaces the host has. Needs root and iproute2 (`ip`); without them it throws, naming what
 * is missing, so the tests using it fail instead of passing without running.
 */
export interface ForeignClient {
  /** Our end of the veth pair: where the client connects to reach a server on 0.0.0.0. */
  serverAddress: string;
  /** The client's address, as the gateway sees it. */
  clientAddress: string;
  /** Sends the requests in order from inside the namespace; answers status and body text. */
  fetchAll(requests: ForeignRequest[]): Promise<Array<{ status: number; body: string }>>;
  close(): void;
}

export interface ForeignRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

function run(args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function startForeignClient(): ForeignClient {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw new Error('the non-loopback access tests need root (they create a network namespace and a veth pair); run the suite as root');
  }
  if (spawnSync('ip', ['-V']).status !== 0) throw new Error('the non-loopback access tests need iproute2 (`ip`): apt-get install -y iproute2');
  // Names and a /30 derived from the pid, so parallel test processes do not collide.
  const pid = process.pid;
  const ns = `sbt${pid}`;
  const ours = `sbt${pid}a`;
  const theirs = `sbt${pid}b`;
  const base = `10.${200 + (pid % 50)}.${Math.floor(pid / 50) % 256}`;
  const last = 4 * (Math.floor(pid / 12800) % 64);
  const serverAddress = `${base}.${last + 1}`;
  const clientAddress = `${base}.${last + 2}`;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    spawnSync('ip', ['link', 'del', ours]);
    spawnSync('ip', ['netns', 'del', ns]);
    process.off('exit', close);
  };
  process.on('exit', close);
  try {
    run(['netns', 'add', ns]);
    run(['link', 'add', ours, 'type', 'veth', 'peer', 'name', theirs]);
    run(['link', 'set', theirs, 'netns', ns]);
    run(['addr', 'add', `${serverAddress}/30`, 'dev', ours]);
    run(['link', 'set', ours, 'up']);
    run(['-n', ns, 'addr', 'add', `${clientAddress}/30`, 'dev', theirs]);
    run(['-n', ns, 'link', 'set', theirs, 'up']);
    run(['-n', ns, 'link', 'set', 'lo', 'up']);
  } catch (err) {
    close();
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`could not create the test's network namespace ${ns}: ${stderr || (err as Error).message}`);
  }
  const script = `
    const requests = JSON.parse(process.argv[1]);
    (async () => {
      const out = [];
      for (const r of requests) {
        const res = await fetch(r.url, { method: r.method ?? 'GET', headers: r.headers ?? {}, ...(r.body !== undefined ? { body: r.body } : {}), signal: AbortSignal.timeout(10000) });
        out.push({ status: res.status, body: await res.text() });
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { process.stderr.write(String(e && e.cause ? e.cause : e)); process.exit(1); });
  `;
  return {
    serverAddress,
    clientAddress,
    fetchAll(requests) {
      return new Promise((resolve, reject) => {
        const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script, JSON.stringify(requests)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let errText = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (errText += d));
        child.on('error', reject);
        child.on('close', (code) => {
          if (code !== 0) return reject(new Error(`request from ${clientAddress} failed (${code}): ${errText.trim()}`));
          resolve(JSON.parse(out));
        });
      });
    },
    close,
  };
}
