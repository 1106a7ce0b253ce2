import { mkdtempSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import type { SwitchboardGateway } from '../../host/surfaces/gateway.js';
import { packageRoot } from '../../host/platform/runtime/paths.js';

export const ROOT = packageRoot();

export interface TestGateway {
  gateway: SwitchboardGateway;
  url: string;
  dataDir: string;
  /** A PLUGINS_PATH directory of this gateway, for dropping manifests. */
  pluginsDir: string;
  /** Every log line the gateway wrote. */
  logs: string[];
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A temp directory removed by the caller. */
export function tempDir(prefix = 'switchboard-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * Starts a real gateway on 127.0.0.1 with its state in a temp DATA_DIR and an isolated
 * environment (nothing leaks in from the machine's env).
 */
export async function startGateway(env: Record<string, string> = {}, options: { watch?: boolean; dataDir?: string; listenHost?: string } = {}): Promise<TestGateway> {
  // Loaded here, not with this module: files that only use the small helpers below skip the gateway's 1,200 modules.
  const { createGateway } = await import('../../host/surfaces/gateway.js');
  const dataDir = options.dataDir ?? tempDir();
  const port = env.PORT && env.PORT !== '0' ? Number(env.PORT) : await freePort();
  const pluginsDir = path.join(dataDir, 'plugins-path');
  mkdirSync(pluginsDir, { recursive: true });
  const logs: string[] = [];
  const fullEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    ENV_FILE: path.join(dataDir, 'no.env'),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_API_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'debug',
    PLUGINS_PATH: pluginsDir,
    PLUGIN_DRAIN_TIMEOUT_MS: '10000',
    // Tests poll GET /fax/{id} many times a second; rate-limit tests set their own limits.
    MAX_REQUESTS_PER_MINUTE: '100000',
    INBOUND_LIST_RPM: '100000',
    INBOUND_GET_RPM: '100000',
    SCHEMA_PROPOSAL_RPM: '100000',
    MCP_REQUESTS_PER_MINUTE: '100000',
    // The tests' loopback fakes stand for public services; refusal tests set it to ''.
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost,::1',
    ...env,
  };
  const destination = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const gateway = await createGateway({ env: fullEnv, cwd: dataDir, logDestination: destination, watch: options.watch ?? true });
  // listenHost: another listen address (`::`); the tests still reach it at 127.0.0.1.
  const address = await gateway.listen(port, options.listenHost ?? '127.0.0.1');
  return {
    gateway,
    url: `http://127.0.0.1:${address.port}`,
    dataDir,
    pluginsDir,
    logs,
    env: fullEnv,
    async close() {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes a third-party style plugin folder: `<dir>/<id>/manifest.json` plus an `entry.mjs`
 * re-exporting a compiled fixture plugin (the host's resolve hook gives it `switchboard/sdk`).
 */
export function writeFixturePlugin(dir: string, id: string, fixture: string, manifest: Record<string, unknown> = {}): string {
  const folder = path.join(dir, id);
  mkdirSync(folder, { recursive: true });
  const compiled = path.join(ROOT, 'dist/test/fixtures/plugins', fixture, 'index.js');
  writeFileSync(path.join(folder, 'entry.mjs'), `export { default } from ${JSON.stringify(pathToFileURL(compiled).href)};\n`);
  const file = path.join(folder, 'manifest.json');
  writeManifest(file, { ...baseManifest(id), entry: 'entry.mjs', ...manifest });
  return file;
}

export function baseManifest(id: string): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id,
    name: `Test ${id}`,
    version: '1.0.0',
    description: 'test plugin',
    author: 'tests',
    host: '^0.1.0',
    provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }],
    capabilities: [],
    egress: [],
  };
}

/** Writes atomically (temp + rename), as editors and deploy tools do. */
export function writeManifest(file: string, manifest: unknown): void {
  const tmp = `${file}.${process.pid}.partial`;
  writeFileSync(tmp, typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  renameSync(tmp, file);
}

export async function json<T = any>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
}

/** Polls `probe` until it returns a truthy value or the deadline passes. */
export async function until<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5000, stepMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** POSTs a multipart fax (`to`, `file`) to the gateway. */
export async function postFax(url: string, to: string, file: Buffer | string, headers: Record<string, string> = {}, filename = 'document'): Promise<Response> {
  const form = new FormData();
  form.set('to', to);
  form.set('file', new Blob([new Uint8Array(typeof file === 'string' ? Buffer.from(file) : file)]), filename);
  return fetch(`${url}/fax`, { method: 'POST', body: form, headers });
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
