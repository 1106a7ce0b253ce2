import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { HttpApi } from '../../../../host/platform/http/api.js';
import { errorHandler, notFoundHandler } from '../../../../host/platform/http/error-handler.js';
import { registerConfigRoutes } from '../../../../host/platform/config/config-routes.js';
import { ConfigRegistry } from '../../../../host/platform/config/registry.js';
import { registerEditorRoutes } from '../../../../host/surfaces/search/editor/editor-routes.js';
import { gatewayConfig, gatewayConfigModel } from '../../../support/gateway-config.js';

interface Harness {
  url: string;
  env: NodeJS.ProcessEnv;
  configFile: string;
  envFile: string;
  legacyFile: string;
  registry: ConfigRegistry;
  /** Every response body this harness received, to prove no secret ever left. */
  bodies: string[];
  get(p: string): Promise<{ status: number; json: any }>;
  post(p: string, body: string, contentType?: string): Promise<{ status: number; json: any }>;
}

const cleanups: Array<() => Promise<void> | void> = [];
test.after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function start(options: { env?: NodeJS.ProcessEnv; envFile?: string; json?: string; legacy?: string } = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-config-routes-'));
  const envFile = path.join(dir, '.env');
  const configFile = path.join(dir, 'config.json');
  const legacyFile = path.join(dir, 'out', 'editor', 'settings.json');
  if (options.envFile !== undefined) writeFileSync(envFile, options.envFile);
  if (options.json !== undefined) writeFileSync(configFile, options.json);
  if (options.legacy !== undefined) {
    mkdirSync(path.dirname(legacyFile), { recursive: true });
    writeFileSync(legacyFile, options.legacy);
  }
  const env = { ...options.env };
  const registry = new ConfigRegistry({ model: gatewayConfigModel(), env, envFile, configFile });

  const api = new HttpApi();
  registerConfigRoutes(api, { registry });
  registerEditorRoutes(api, { config: gatewayConfig(registry), legacyEditorSettingsFile: legacyFile });
  const app = express();
  app.use(api.router);
  app.use(notFoundHandler);
  app.use(errorHandler());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanups.push(
    () => new Promise<void>((resolve) => server.close(() => resolve())),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bodies: string[] = [];
  const read = async (res: Response) => {
    const text = await res.text();
    bodies.push(text);
    return { status: res.status, json: JSON.parse(text) };
  };
  return {
    url,
    env,
    configFile,
    envFile,
    legacyFile,
    registry,
    bodies,
    get: async (p) => read(await fetch(url + p)),
    post: async (p, body, contentType = 'application/json') =>
      read(await fetch(url + p, { method: 'POST', headers: { 'content-type': contentType }, body })),
  };
}

// WEBHOOK_TARGETS is checked as a list of https URLs, so its secret is one.
// SECRETS_KEY takes 32 characters or more.
const secretValue = (prefix: string, key: string) => (key === 'WEBHOOK_TARGETS' ? 'https://hooks.example.com/' : '') + `${prefix}-${key.toLowerCase()}-value` + (key.startsWith('SECRETS_KEY') ? '-padded-to-thirty-two' : '');
const allSecrets = (prefix: string) => Object.fromEntries([...gatewayConfigModel().secretKeys].map((key) => [key, secretValue(prefix, key)]));

test('GET /api/config returns every key with its source and every secret masked', async () => {
  const fromEnv = allSecrets('env');
  delete fromEnv.DATABASE_URL;
  const h = await start({
    env: { ...fromEnv, FINAL_K: '11' },
    envFile: 'DATABASE_URL=postgres://app:pw-in-envfile@db/app\n',
    json: JSON.stringify({ LANGGRAPH_FINAL_K: 25, MCP_API_KEY: 'json-mcp-secret' }),
  });
  const { status, json } = await h.get('/api/config');
  assert.is(status, 200);
  for (const key of gatewayConfigModel().secretKeys) assert.is(json.config[key], '***', key);
  assert.is(json.config.FINAL_K, 11);
  assert.is(json.source.FINAL_K, 'env');
  assert.is(json.config.LANGGRAPH_FINAL_K, 25);
  assert.is(json.source.LANGGRAPH_FINAL_K, 'config.json');
  assert.is(json.config.REPO, 'switchboard');
  assert.is(json.source.REPO, 'default');
  assert.is(json.config.PUBLIC_API_URL, null);
  assert.is(json.source.MCP_API_KEY, 'env', 'env wins over the file for secrets too');
  assert.not.match(h.bodies.join('\n'), /-value|pw-in-envfile|json-mcp-secret/);
});

test('POST /api/config stores keys and answers the masked effective config with env_overridden and written', async () => {
  const h = await start({ env: { PORT: '8081' } });
  const { status, json } = await h.post('/api/config', JSON.stringify({ FINAL_K: 12, GEN_TEMPERATURE: '0.2', PORT: 9090, OPENAI_API_KEY: 'sk-posted-secret' }));
  assert.is(status, 200);
  assert.equal(json.written, ['FINAL_K', 'GEN_TEMPERATURE', 'PORT', 'OPENAI_API_KEY']);
  assert.equal(json.env_overridden, ['PORT']);
  assert.is(json.config.FINAL_K, 12);
  assert.is(json.config.GEN_TEMPERATURE, 0.2);
  assert.is(json.config.PORT, 8081, 'env keeps winning');
  assert.is(json.source.PORT, 'env');
  assert.is(json.config.OPENAI_API_KEY, '***');
  assert.equal(JSON.parse(readFileSync(h.configFile, 'utf8')), {
    FINAL_K: 12,
    GEN_TEMPERATURE: 0.2,
    PORT: 9090,
    OPENAI_API_KEY: 'sk-posted-secret',
  });
  const after = await h.get('/api/config');
  assert.is(after.json.config.PORT, 8081);
  assert.is(after.json.source.FINAL_K, 'config.json');
  assert.not.match(h.bodies.join('\n'), /sk-posted-secret/);
});

test('POST /api/config with bad values answers 422 naming each key and leaves the file byte-for-byte unchanged', async () => {
  const original = '{\n  "FINAL_K": 9,\n  "REPO": "kept"\n}\n';
  const h = await start({ json: original });
  const { status, json } = await h.post('/api/config', JSON.stringify({ FINAL_K: 'lots', EDITOR_ENABLED: 'perhaps', REPO: 'fine-name' }));
  assert.is(status, 422);
  assert.is(json.code, 'validation_error');
  assert.match(json.detail, /FINAL_K: /);
  assert.match(json.detail, /EDITOR_ENABLED: /);
  assert.not.match(json.detail, /REPO/);
  assert.is(readFileSync(h.configFile, 'utf8'), original);
  const after = await h.get('/api/config');
  assert.is(after.json.config.FINAL_K, 9);
});

test('POST /api/config refuses unknown keys with 422 and writes nothing', async () => {
  const h = await start();
  const { status, json } = await h.post('/api/config', JSON.stringify({ FINAL_K: 5, NOT_A_KEY: true }));
  assert.is(status, 422);
  assert.is(json.detail, 'NOT_A_KEY: unknown configuration key');
  assert.not.ok(existsSync(h.configFile));
});

test('POST /api/config with the mask for a secret keeps the stored secret', async () => {
  const h = await start({ json: JSON.stringify({ ANTHROPIC_API_KEY: 'sk-ant-stored' }) });
  const got = await h.get('/api/config');
  assert.is(got.json.config.ANTHROPIC_API_KEY, '***');
  // A UI sends back what it was shown.
  const { status, json } = await h.post('/api/config', JSON.stringify({ ANTHROPIC_API_KEY: got.json.config.ANTHROPIC_API_KEY, CHUNK_SIZE: 800 }));
  assert.is(status, 200);
  assert.equal(json.written, ['CHUNK_SIZE']);
  assert.equal(JSON.parse(readFileSync(h.configFile, 'utf8')), { ANTHROPIC_API_KEY: 'sk-ant-stored', CHUNK_SIZE: 800 });
  assert.is(h.registry.get('ANTHROPIC_API_KEY'), 'sk-ant-stored');
  assert.not.match(h.bodies.join('\n'), /sk-ant-stored/);
});

test('POST /api/config: malformed JSON is 400, a non-object body 422, a non-JSON content type 415', async () => {
  const h = await start();
  const malformed = await h.post('/api/config', '{"FINAL_K": ');
  assert.is(malformed.status, 400);
  assert.is(malformed.json.code, 'validation_error');
  assert.type(malformed.json.detail, 'string');
  const array = await h.post('/api/config', '[1, 2]');
  assert.is(array.status, 422);
  const text = await h.post('/api/config', 'FINAL_K=3', 'text/plain');
  assert.is(text.status, 415);
  assert.is(text.json.code, 'unsupported_media_type');
  assert.not.ok(existsSync(h.configFile));
});

test('POST /api/config answers 409 when the config file on disk is not JSON, and keeps it', async () => {
  const h = await start({ json: '{"FINAL_K": 4' });
  const { status, json } = await h.post('/api/config', JSON.stringify({ FINAL_K: 5 }));
  assert.is(status, 409);
  assert.match(json.detail, /config\.json/);
  assert.is(readFileSync(h.configFile, 'utf8'), '{"FINAL_K": 4');
});

test('no secret value appears in any response body, whatever its source', async () => {
  const h = await start({
    env: { OPENAI_API_KEY: 'S3CRET-env-openai', API_KEY: 'S3CRET-env-apikey' },
    envFile: 'GRAFANA_AUTH_TOKEN=S3CRET-envfile-grafana\nDATABASE_URL=postgres://u:S3CRET-db@h/d\n',
    json: JSON.stringify({ VOYAGE_API_KEY: 'S3CRET-json-voyage' }),
  });
  await h.get('/api/config');
  await h.post('/api/config', JSON.stringify({ OAUTH_TOKEN: 'S3CRET-posted-oauth', OPENAI_API_KEY: 'S3CRET-posted-openai' }));
  await h.post('/api/config', JSON.stringify({ OAUTH_TOKEN: 'S3CRET-posted-oauth-2', FINAL_K: -1 }));
  await h.post('/api/config', JSON.stringify({ LANGSMITH_API_KEY: 12345 }));
  await h.get('/api/config');
  await h.get('/api/editor/settings');
  assert.is(h.bodies.length, 6);
  for (const body of h.bodies) assert.not.match(body, /S3CRET|12345/);
});

test('GET /api/editor/settings: defaults when neither the registry nor a legacy file has values', async () => {
  const h = await start();
  const { status, json } = await h.get('/api/editor/settings');
  assert.is(status, 200);
  assert.equal(json, {
    port: 4440,
    enabled: true,
    embed_enabled: true,
    bind: 'local',
    image: 'codercom/code-server:latest',
    source: 'default',
  });
});

test('GET /api/editor/settings: the legacy file when the registry has only defaults', async () => {
  const h = await start({ legacy: JSON.stringify({ port: 5000, enabled: false, bind: 'all', embed_enabled: 'not-a-bool' }) });
  const { json } = await h.get('/api/editor/settings');
  assert.equal(json, {
    port: 5000,
    enabled: false,
    embed_enabled: true, // the invalid legacy field is left out
    bind: 'all',
    image: 'codercom/code-server:latest',
    source: 'legacy',
  });
});

test('GET /api/editor/settings: the registry wins over the legacy file once any EDITOR_* key is set', async () => {
  const h = await start({ env: { EDITOR_PORT: '4550' }, legacy: JSON.stringify({ port: 5000, enabled: false, image: 'legacy/image:1' }) });
  const fromEnv = await h.get('/api/editor/settings');
  assert.equal(fromEnv.json, {
    port: 4550,
    enabled: true,
    embed_enabled: true,
    bind: 'local',
    image: 'codercom/code-server:latest',
    source: 'registry',
  });

  delete h.env.EDITOR_PORT;
  h.registry.reload();
  assert.is((await h.get('/api/editor/settings')).json.source, 'legacy');

  const posted = await h.post('/api/config', JSON.stringify({ EDITOR_ENABLED: 'no', EDITOR_IMAGE: 'registry/editor:2' }));
  assert.is(posted.status, 200);
  const fromFile = await h.get('/api/editor/settings');
  assert.equal(fromFile.json, {
    port: 4440,
    enabled: false,
    embed_enabled: true,
    bind: 'local',
    image: 'registry/editor:2',
    source: 'registry',
  });
});

test('GET /api/editor/settings: a malformed legacy file is ignored', async () => {
  const h = await start({ legacy: '{not json' });
  const { status, json } = await h.get('/api/editor/settings');
  assert.is(status, 200);
  assert.is(json.source, 'default');
});

test('the three routes always need admin access (loopback when no key exists) and are documented in OpenAPI', async () => {
  const api = new HttpApi();
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-config-routes-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const registry = new ConfigRegistry({ model: gatewayConfigModel(), env: {}, envFile: path.join(dir, '.env'), configFile: path.join(dir, 'c.json') });
  registerConfigRoutes(api, { registry });
  registerEditorRoutes(api, { config: gatewayConfig(registry), legacyEditorSettingsFile: path.join(dir, 'settings.json') });
  assert.equal(
    api.routes.map((r) => [r.method, r.path, r.access]),
    [
      ['get', '/api/config', { scope: 'admin', administrative: true }],
      ['post', '/api/config', { scope: 'admin', administrative: true }],
      ['get', '/api/editor/settings', { scope: 'admin', administrative: true }],
    ],
  );
  assert.is(api.registry.definitions.length, 3);
});

test.run();
