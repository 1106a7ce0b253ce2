import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir, until } from '../../support/gateway.js';

// `npm start` and `node dist/host/main.js` as an operator runs them: real processes, real ports.

function gatewayEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dataDir, DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info' };
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  // 'close', not 'exit': the output piped before the exit has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { stdout: () => out, stderr: () => err, exited };
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Settles with the value, or rejects after `ms` (a bound on waiting for a process, not a timing claim). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_r, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref())]);
}

test('a taken port ends the gateway with exit code 1 and one line on stderr naming the port', async () => {
  const holder: Server = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  const port = (holder.address() as { port: number }).port;
  const dataDir = tempDir();
  try {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/host/main.js')], { env: gatewayEnv(dataDir, port), stdio: ['ignore', 'pipe', 'pipe'] });
    const run = collect(child);
    const code = await within(run.exited, 60_000, 'the gateway exits').catch((err) => {
      child.kill('SIGKILL');
      throw err;
    });
    assert.is(code, 1, run.stderr());
    assert.equal(run.stderr().trim().split('\n'), [`switchboard: port ${port} is in use; set PORT`]);
    // Background work starts only once the port is bound: nothing of it ran.
    assert.not.match(run.stdout(), /switchboard listening|dispatcher|process fault/);
  } finally {
    holder.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('`node host/bin/start.mjs`: /health answers while the gateway loads; a request sent meanwhile gets 503 with Retry-After until the whole gateway answers it', async () => {
  const holder: Server = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  const port = (holder.address() as { port: number }).port;
  await new Promise<void>((r) => holder.close(() => r()));
  const dataDir = tempDir();
  const child = spawn(process.execPath, [path.join(ROOT, 'host/bin/start.mjs')], { env: gatewayEnv(dataDir, port), stdio: ['ignore', 'pipe', 'pipe'] });
  const run = collect(child);
  try {
    const url = `http://127.0.0.1:${port}`;
    await until(async () => {
      if (child.exitCode !== null) throw new Error(`exited: ${run.stderr()}`);
      return (await fetch(`${url}/health`).catch(() => undefined))?.status === 200;
    }, 90_000, 5);
    // Sent at once after the first 200, most often while the plugins still load: 503 with
    // Retry-After (never a 404 or an incomplete document), then, asked again, the whole gateway.
    const whenServing = async (pathname: string): Promise<Response> => {
      for (;;) {
        const res = await fetch(`${url}${pathname}`);
        if (res.status !== 503) return res;
        assert.ok(Number(res.headers.get('retry-after')) >= 1, `${pathname}: a 503 while loading says when to ask again`);
        assert.is(((await res.json()) as { code: string }).code, 'plugins_loading');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const [openapi, faxJob] = await Promise.all([whenServing('/openapi.json'), whenServing('/fax/00000000-0000-4000-8000-000000000000')]);
    assert.is(openapi.status, 200);
    const doc = (await openapi.json()) as { paths: Record<string, unknown> };
    for (const p of ['/fax', '/fax/{id}', '/health/ready', '/mcp']) assert.ok(doc.paths[p], `${p} is in /openapi.json`);
    // The fax surface's route answers (404 for an unknown job, not the platform's unknown-route 404).
    assert.is(faxJob.status, 404);
    assert.is(((await faxJob.json()) as { code: string }).code, 'fax_job_not_found');
    // The banner reaches the pipe on its own time (pino writes asynchronously): wait for it.
    await until(() => /switchboard listening/.test(run.stdout()), 30_000, 20);
  } finally {
    child.kill('SIGTERM');
    await within(run.exited, 30_000, 'the gateway exits').catch(() => child.kill('SIGKILL'));
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM to `npm start` stops the gateway and frees its port', async () => {
  const dataDir = tempDir();
  // Its own process group, so the cleanup below reaches a gateway left behind by npm too.
  const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: gatewayEnv(dataDir, 0), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const run = collect(npm);
  try {
    const port = await until(() => {
      const line = run.stdout().split('\n').find((l) => l.includes('"switchboard listening"'));
      return line ? (JSON.parse(line) as { port: number }).port : undefined;
    }, 90_000, 100);
    assert.ok(await accepts(port), 'the gateway serves');
    npm.kill('SIGTERM');
    await within(run.exited, 30_000, 'npm exits');
    await until(async () => !(await accepts(port)), 30_000, 100);
    assert.match(run.stdout(), /draining and stopping/, 'the gateway itself got the signal');
  } finally {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // the group is gone: everything exited
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
