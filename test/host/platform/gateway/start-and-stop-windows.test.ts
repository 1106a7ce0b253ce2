import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, removeDir, tempDir, until } from '../../../support/gateway.js';
import { listeningPort } from '../../../support/listening-port.js';
import { makePdf } from '../../../fakes/fax-document-server.js';

/**
 * From the moment the port opens until the gateway is ready, and across a SIGTERM and a restart
 * on the same port, a provider or PBX posting to a webhook alias never gets 404: before the
 * plugins load and while draining the answer is 503 with Retry-After, so it delivers again, and
 * the inbound fax it posts is stored once.
 */
const PBX_SECRET = 'windows-pbx-secret-9b2e';
const ALIASES = ['/providera-callback', '/providera-inbound', '/providerb-inbound', '/providerc-callback', '/_internal/pbx/inbound', '/_internal/freeswitch/outbound_result'];
const UNIQUE_ID = 'windows-inbound-1';

interface Child {
  process: ChildProcess;
  port: Promise<number>;
  listening: Promise<number>;
  exited: Promise<void>;
  output: () => string;
}

function startChild(env: Record<string, string>, port = 0): Child {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/host/main.js')], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost,::1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    process: child,
    // Both watchers from the first byte: the lines are seconds apart, but never missed.
    port: listeningPort(child, 'switchboard port bound', 60_000),
    listening: listeningPort(child, 'switchboard listening', 120_000),
    exited: new Promise((resolve) => child.once('close', () => resolve())),
    output: () => out,
  };
}

interface Answer {
  path: string;
  status: number;
  retryAfter: string | null;
  code?: string;
  body?: string;
}

let work: string;
let spool: string;
let env: Record<string, string>;

test.before(async () => {
  work = tempDir('switchboard-windows-');
  spool = path.join(work, 'spool');
  mkdirSync(spool);
  writeFileSync(path.join(work, 'one.pdf'), await makePdf(1));
  execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=tiffg4', '-r204x196', `-sOutputFile=${path.join(spool, 'in.tiff')}`, path.join(work, 'one.pdf')]);
  env = {
    DATA_DIR: path.join(work, 'data'),
    ENV_FILE: path.join(work, 'none.env'),
    INBOUND_ENABLED: 'true',
    FAX_BACKEND: 'sip',
    PBX_INBOUND_SECRET: PBX_SECRET,
    PBX_SPOOL_DIR: spool,
    MAX_REQUESTS_PER_MINUTE: '1000000',
  };
});
test.after(() => removeDir(work));

test('every webhook alias, /openapi.json and /mcp answer 503 with Retry-After, never 404, while starting, draining and restarting; the inbound fax is stored once', async () => {
  const inbound = JSON.stringify({ tiff_path: path.join(spool, 'in.tiff'), to_number: '+15550002222', from_number: '+15557650000', uniqueid: UNIQUE_ID });
  const answers: Answer[] = [];
  let base = '';
  let stop = false;
  let stored = 0;
  const post = async (p: string): Promise<void> => {
    const isPbx = p === '/_internal/pbx/inbound';
    try {
      const res = await fetch(`${base}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(isPbx ? { 'x-internal-secret': PBX_SECRET } : {}) },
        body: isPbx ? inbound : '{}',
      });
      const body = await res.text();
      answers.push({ path: p, status: res.status, retryAfter: res.headers.get('retry-after'), body: body.slice(0, 300) });
      if (isPbx && res.status === 200) stored++;
    } catch {
      // The port is closed between the two processes: the sender retries, nothing was answered.
    }
  };
  const getOpenApi = async (): Promise<void> => {
    try {
      const res = await fetch(`${base}/openapi.json`);
      const body = await res.text();
      answers.push({ path: '/openapi.json', status: res.status, retryAfter: res.headers.get('retry-after'), body });
    } catch {
      // as above
    }
  };
  const first = startChild(env);
  base = `http://127.0.0.1:${await first.port}`;
  const hammer = (async () => {
    while (!stop) {
      await Promise.all([...ALIASES.map(post), post('/mcp'), getOpenApi()]);
      // A refused connection fails at once: let the timers and the children's output run.
      await new Promise<void>((r) => setImmediate(r));
    }
  })();
  let second: Child | undefined;
  try {
    await first.listening;
    // Served: the inbound fax is taken.
    await until(() => stored > 0 || undefined, 30_000, 10).catch(() => assert.unreachable(`the inbound fax was never taken: ${JSON.stringify(answers.filter((a) => a.path === '/_internal/pbx/inbound').slice(-3))}`));
    const port = await first.port;
    first.process.kill('SIGTERM');
    await first.exited;
    second = startChild({ ...env, PUBLIC_API_URL: `http://127.0.0.1:${port}` }, port);
    await second.port;
    await second.listening;
    // Once more after the restart: the same notice is a duplicate, not a second fax.
    const before = stored;
    await until(() => stored > before || undefined, 30_000, 10).catch(() => assert.unreachable(`the inbound fax was never taken after the restart: ${JSON.stringify(answers.slice(-3))}`));
  } finally {
    stop = true;
    await hammer;
  }
  try {
    const notFound = answers.filter((a) => a.status === 404);
    assert.equal(notFound, [], `404 answers:\n${notFound.map((a) => `${a.path} ${a.body}`).join('\n')}`);
    // A provider that needs settings answers its own 503 (plugin_not_available); these are the windows'.
    const windows = answers.filter((a) => a.status === 503 && ['plugins_loading', 'shutting_down'].includes(JSON.parse(a.body!).code));
    assert.ok(windows.some((a) => JSON.parse(a.body!).code === 'plugins_loading'), 'the loop saw no answer while the plugins loaded');
    for (const a of windows) assert.ok(a.retryAfter && Number(a.retryAfter) > 0, `${a.path} 503 without Retry-After: ${a.body}`);
    // Every /openapi.json answered is complete: the aliases are in it.
    for (const a of answers.filter((x) => x.path === '/openapi.json' && x.status === 200)) {
      const paths = Object.keys(JSON.parse(a.body!).paths);
      for (const alias of ALIASES) assert.ok(paths.includes(alias), `/openapi.json without ${alias}`);
    }
    const list = await (await fetch(`${base}/inbound?limit=100`)).json();
    assert.is(list.faxes.length, 1, JSON.stringify(list));
  } finally {
    second?.process.kill('SIGTERM');
    await second?.exited;
  }
});

test.run();
