import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { removeServerAddress, runningServerPort, serverAddressFile, writeServerAddress } from '../../../plugins/judge-selfhosted/server-address.js';
import { removeDir, ROOT, tempDir } from '../../support/gateway.js';
import { startJudgeServerProcess } from '../../support/judge-server-process.js';

// The judge server needs no port agreed between two processes: it takes the default port or, when
// that is taken, a free one, and says which in DATA_DIR/judge-server/address.json for the gateway.

const run = promisify(execFile);
const DEFAULT_PORT = 58180;

/** A listener on a loopback port; an already busy port is just as busy for the server. */
async function occupy(port: number): Promise<net.Server | undefined> {
  const blocker = net.createServer();
  return new Promise((resolve, reject) => {
    blocker.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    blocker.listen(port, '127.0.0.1', () => resolve(blocker));
  });
}

test('with the default port taken the server picks a free one and writes it where the gateway looks; it removes it when it stops', async () => {
  const dataDir = tempDir('judge-port-');
  const blocker = await occupy(DEFAULT_PORT);
  try {
    const server = await startJudgeServerProcess({ DATA_DIR: dataDir, SELFHOSTED_HTTP_PORT: undefined });
    assert.is.not(server.port, DEFAULT_PORT);
    assert.match(server.output(), /the default port is in use: picking a free one/);
    assert.equal(JSON.parse(readFileSync(serverAddressFile(dataDir), 'utf8')), { port: server.port, pid: server.pid });
    assert.is(runningServerPort(dataDir), server.port);
    assert.is((await fetch(`${server.url}/metrics`)).status, 200);
    assert.is(await server.stop(), 0);
    assert.not.ok(existsSync(serverAddressFile(dataDir)), 'removed at stop');
  } finally {
    blocker?.close();
    removeDir(dataDir);
  }
});

test('a port the operator chose is kept to: taken, the server exits saying so', async () => {
  const blocker = (await occupy(0))!;
  const port = (blocker.address() as net.AddressInfo).port;
  const dataDir = tempDir('judge-port-');
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ENV_FILE: '/nonexistent/.env', DATA_DIR: dataDir, SELFHOSTED_HTTP_PORT: String(port) };
    const out = await run(process.execPath, [path.join(ROOT, 'dist/host/cli/run.js'), 'judge-server'], { env, timeout: 60_000 }).catch((err) => err);
    assert.is(out.code, 1, `${out.stdout}${out.stderr}`);
    assert.match(out.stderr, new RegExp(`port ${port} \\(SELFHOSTED_HTTP_PORT\\) is in use; unset SELFHOSTED_HTTP_PORT to let the server pick a free port`));
    assert.not.ok(existsSync(serverAddressFile(dataDir)));
  } finally {
    blocker.close();
    removeDir(dataDir);
  }
});

test('an address left by a server that died is not used', () => {
  const dataDir = tempDir('judge-port-');
  try {
    assert.is(runningServerPort(dataDir), undefined);
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeServerAddress(dataDir, 40001, dead);
    assert.is(runningServerPort(dataDir), undefined);
    writeServerAddress(dataDir, 40002);
    assert.is(runningServerPort(dataDir), 40002);
    removeServerAddress(dataDir, dead);
    assert.is(runningServerPort(dataDir), 40002, 'only its writer removes it');
    removeServerAddress(dataDir);
    assert.is(runningServerPort(dataDir), undefined);
  } finally {
    removeDir(dataDir);
  }
});

test.run();
