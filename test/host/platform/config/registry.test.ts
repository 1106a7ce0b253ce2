import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ConfigRegistry,
  ConfigValidationError,
  ConfigFileUnreadableError,
} from '../../../../host/platform/config/registry.js';
import { gatewayConfig, gatewayConfigModel } from '../../../support/gateway-config.js';

const dirs: string[] = [];
test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function setup(files: { env?: string; json?: unknown } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-registry-'));
  dirs.push(dir);
  const envFile = path.join(dir, '.env');
  const configFile = path.join(dir, 'config.json');
  if (files.env !== undefined) writeFileSync(envFile, files.env);
  if (files.json !== undefined) writeFileSync(configFile, typeof files.json === 'string' ? files.json : JSON.stringify(files.json));
  const env: NodeJS.ProcessEnv = {};
  const registry = gatewayConfig(new ConfigRegistry({ model: gatewayConfigModel(), env, envFile, configFile }));
  return { dir, env, envFile, configFile, registry };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

test('precedence: process env > env file > JSON file > default, each layer proven', () => {
  const { env, envFile, configFile, registry } = setup({ env: 'FINAL_K=12\n', json: { FINAL_K: 13 } });
  env.FINAL_K = '11';
  registry.reload();
  assert.is(registry.get('FINAL_K'), 11, 'process env wins');
  assert.is(registry.effective().source.FINAL_K, 'env');

  delete env.FINAL_K;
  registry.reload();
  assert.is(registry.get('FINAL_K'), 12, 'env file next');
  assert.is(registry.effective().source.FINAL_K, 'env');

  writeFileSync(envFile, '# nothing here\n');
  registry.reload();
  assert.is(registry.get('FINAL_K'), 13, 'JSON file next');
  assert.is(registry.effective().source.FINAL_K, 'config.json');

  writeFileSync(configFile, '{}');
  registry.reload();
  assert.is(registry.get('FINAL_K'), 10, 'model default last');
  assert.is(registry.effective().source.FINAL_K, 'default');
});

test('every key reports its source; env values are coerced to their types', () => {
  const { env, registry } = setup({ env: 'EDITOR_ENABLED=no\nREPO=from-env-file\n', json: { CHUNK_SIZE: 500, REPO: 'from-json' } });
  env.BM25_WEIGHT = '0.4';
  registry.reload();
  const { config, source } = registry.effective();
  assert.is(config.BM25_WEIGHT, 0.4);
  assert.is(config.EDITOR_ENABLED, false);
  assert.is(config.REPO, 'from-env-file');
  assert.is(config.CHUNK_SIZE, 500);
  assert.is(source.BM25_WEIGHT, 'env');
  assert.is(source.EDITOR_ENABLED, 'env');
  assert.is(source.REPO, 'env');
  assert.is(source.CHUNK_SIZE, 'config.json');
  assert.is(source.PORT, 'default');
  assert.equal(Object.keys(source).sort(), Object.keys(config).sort());
  assert.equal(registry.problems(), []);
});

test('an empty env value counts as unset', () => {
  const { env, registry } = setup({ json: { FINAL_K: 14 } });
  env.FINAL_K = '';
  registry.reload();
  assert.is(registry.get('FINAL_K'), 14);
});

test('masked() hides every secret that is set and shows null for unset keys; effective() keeps raw values', () => {
  const { env, registry } = setup({ env: 'ANTHROPIC_API_KEY=sk-ant-envfile\n', json: { COHERE_API_KEY: 'co-json' } });
  env.OPENAI_API_KEY = 'sk-openai-env';
  registry.reload();
  const masked = registry.masked();
  for (const key of registry.model.secretKeys) {
    const expected = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'COHERE_API_KEY'].includes(key) ? '***' : null;
    assert.is(masked.config[key], expected, key);
  }
  assert.is(masked.config.PUBLIC_API_URL, null);
  assert.is(masked.config.FINAL_K, 10);
  assert.not.match(JSON.stringify(masked), /sk-openai-env|sk-ant-envfile|co-json/);
  assert.is(registry.effective().config.OPENAI_API_KEY, 'sk-openai-env');
  assert.is(registry.get('COHERE_API_KEY'), 'co-json');
});

test('update writes typed values to the file and reports what it wrote', async () => {
  const { registry, configFile } = setup();
  const result = await registry.update({ FINAL_K: '15', ENRICH_CODE_CHUNKS: 'yes', GEN_TEMPERATURE: 0.2 });
  assert.equal(result.written, ['FINAL_K', 'ENRICH_CODE_CHUNKS', 'GEN_TEMPERATURE']);
  assert.equal(result.envOverridden, []);
  assert.is(result.config.FINAL_K, 15);
  assert.is(result.source.FINAL_K, 'config.json');
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), { FINAL_K: 15, ENRICH_CODE_CHUNKS: true, GEN_TEMPERATURE: 0.2 });
  assert.is(statSync(configFile).mode & 0o777, 0o600, 'a new config file is private: it may hold secrets');
  assert.is(registry.get('ENRICH_CODE_CHUNKS'), true);
});

test('a posted key that is set in env is stored, but the env value stays effective', async () => {
  const { env, registry, configFile } = setup();
  env.FINAL_K = '30';
  registry.reload();
  const result = await registry.update({ FINAL_K: 5, CHUNK_SIZE: 800 });
  assert.equal(result.envOverridden, ['FINAL_K']);
  assert.equal(result.written, ['FINAL_K', 'CHUNK_SIZE']);
  assert.is(result.config.FINAL_K, 30);
  assert.is(result.source.FINAL_K, 'env');
  assert.is(registry.get('FINAL_K'), 30);
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), { FINAL_K: 5, CHUNK_SIZE: 800 });

  delete env.FINAL_K;
  registry.reload();
  assert.is(registry.get('FINAL_K'), 5, 'the stored value applies once env no longer sets it');
});

test('invalid values refuse the whole write, naming each key, and leave the file byte-for-byte unchanged', async () => {
  const { registry, configFile } = setup({ json: '{\n  "CHUNK_SIZE": 900\n}\n' });
  const before = readFileSync(configFile);
  const err = await rejection(registry.update({ FINAL_K: 'ten', EDITOR_PORT: 0, CHUNK_SIZE: 700 }));
  assert.instance(err, ConfigValidationError);
  const issues = (err as ConfigValidationError).issues.map((i) => i.key).sort();
  assert.equal(issues, ['EDITOR_PORT', 'FINAL_K']);
  assert.match((err as Error).message, /FINAL_K: .+; EDITOR_PORT: |EDITOR_PORT: .+; FINAL_K: /);
  assert.ok(readFileSync(configFile).equals(before));
  assert.is(registry.get('CHUNK_SIZE'), 900);
});

test('unknown keys are refused and nothing is written', async () => {
  const { registry, configFile } = setup();
  const err = await rejection(registry.update({ FINAL_K: 4, NOT_A_KEY: 1 }));
  assert.instance(err, ConfigValidationError);
  assert.equal((err as ConfigValidationError).issues, [{ key: 'NOT_A_KEY', message: 'unknown configuration key' }]);
  assert.not.ok(existsSync(configFile));
});

test('posting the mask for a secret keeps the stored secret; the mask is never written', async () => {
  const { registry, configFile } = setup({ json: { OPENAI_API_KEY: 'sk-stored-secret' } });
  const result = await registry.update({ OPENAI_API_KEY: '***', FINAL_K: 7 });
  assert.equal(result.written, ['FINAL_K']);
  const stored = JSON.parse(readFileSync(configFile, 'utf8'));
  assert.is(stored.OPENAI_API_KEY, 'sk-stored-secret');
  assert.not.match(readFileSync(configFile, 'utf8'), /\*\*\*/);
  assert.is(registry.get('OPENAI_API_KEY'), 'sk-stored-secret');
  assert.is(result.config.OPENAI_API_KEY, '***');
});

test('null removes a key from the file, so its default applies again', async () => {
  const { registry, configFile } = setup({ json: { FINAL_K: 9, MCP_API_KEY: 'mcp-secret' } });
  const result = await registry.update({ FINAL_K: null, MCP_API_KEY: null });
  assert.equal(result.written, ['FINAL_K', 'MCP_API_KEY']);
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), {});
  assert.is(registry.get('FINAL_K'), 10);
  assert.is(registry.masked().config.MCP_API_KEY, null);
});

test('bad JSON in the config file: no crash, a problem, defaults; writes refused and the file kept', async () => {
  const { registry, configFile } = setup({ json: '{"FINAL_K": 12,,' });
  assert.is(registry.get('FINAL_K'), 10);
  assert.is(registry.effective().source.FINAL_K, 'default');
  assert.match(registry.problems().join('\n'), /config\.json: not valid JSON/);
  const err = await rejection(registry.update({ FINAL_K: 3 }));
  assert.instance(err, ConfigFileUnreadableError);
  assert.is(readFileSync(configFile, 'utf8'), '{"FINAL_K": 12,,');
});

test('invalid env and file values are reported (without the value) and the next source is used', () => {
  const { env, registry } = setup({ env: 'CHUNK_SIZE=lots\n', json: { CHUNK_SIZE: 640, TOPK_DENSE: -1, EXTRA_KEY: 1 } });
  env.FINAL_K = 'many';
  env.DATABASE_URL = 'postgres://user:hunter2@db/x';
  env.PUBLIC_API_URL = 'not-a-url-secretish';
  registry.reload();
  assert.is(registry.get('FINAL_K'), 10);
  assert.is(registry.get('CHUNK_SIZE'), 640, 'bad env file value falls through to the JSON file');
  assert.is(registry.effective().source.CHUNK_SIZE, 'config.json');
  assert.is(registry.get('TOPK_DENSE'), 75);
  const problems = registry.problems().join('\n');
  assert.match(problems, /FINAL_K: .*the environment/);
  assert.match(problems, /CHUNK_SIZE: .*\.env/);
  assert.match(problems, /TOPK_DENSE: .*config\.json/);
  assert.match(problems, /PUBLIC_API_URL/);
  assert.match(problems, /EXTRA_KEY: unknown configuration key/);
  assert.not.match(problems, /many|lots|not-a-url-secretish|hunter2/);
});

test('a stored value that became invalid is named in the refusal; unknown file keys survive a write', async () => {
  const { registry, configFile } = setup({ json: { TOPK_DENSE: -1, FUTURE_KEY: 'keep me' } });
  const err = await rejection(registry.update({ FINAL_K: 4 }));
  assert.match((err as Error).message, /TOPK_DENSE: .*stored in config\.json/);
  await registry.update({ FINAL_K: 4, TOPK_DENSE: 50 });
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), { TOPK_DENSE: 50, FUTURE_KEY: 'keep me', FINAL_K: 4 });
});

test('a write whose rename fails with EIO leaves the file, the registry and the directory as they were', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-registry-'));
  dirs.push(dir);
  const configFile = path.join(dir, 'config.json');
  writeFileSync(configFile, '{"FINAL_K": 8}');
  const registry = new ConfigRegistry({ model: gatewayConfigModel(),
    env: {},
    envFile: path.join(dir, '.env'),
    configFile,
    rename: async () => {
      throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO', errno: -5, syscall: 'rename' });
    },
  });
  const err = await rejection(registry.update({ FINAL_K: 9 }));
  assert.is((err as NodeJS.ErrnoException).code, 'EIO');
  assert.is(readFileSync(configFile, 'utf8'), '{"FINAL_K": 8}');
  assert.equal(readdirSync(dir), ['config.json']);
  assert.is(gatewayConfig(registry).get('FINAL_K'), 8);
});

test('update keeps keys edited by hand since the last load, and concurrent updates lose nothing', async () => {
  const { registry, configFile } = setup({ json: { FINAL_K: 2 } });
  writeFileSync(configFile, JSON.stringify({ FINAL_K: 2, CHUNK_SIZE: 321 }));
  await Promise.all([registry.update({ TOPK_DENSE: 11 }), registry.update({ TOPK_SPARSE: 12 }), registry.update({ RRF_K_DIV: 13 })]);
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), { FINAL_K: 2, CHUNK_SIZE: 321, TOPK_DENSE: 11, TOPK_SPARSE: 12, RRF_K_DIV: 13 });
});

test('onChange is told the keys whose effective value changed, after update and reload', async () => {
  const { env, registry } = setup();
  const calls: string[][] = [];
  const off = registry.onChange((keys) => calls.push([...keys]));
  await registry.update({ FINAL_K: 3, CHUNK_SIZE: 1000 }); // CHUNK_SIZE equals its default
  env.REPO = 'other-repo';
  registry.reload();
  registry.reload(); // nothing changed: no call
  off();
  env.REPO = 'third';
  registry.reload();
  assert.equal(calls, [['FINAL_K'], ['REPO']]);
});

test('a throwing listener does not stop the write or the other listeners', async () => {
  const errors: unknown[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-registry-'));
  dirs.push(dir);
  const registry = gatewayConfig(new ConfigRegistry({ model: gatewayConfigModel(), env: {}, envFile: path.join(dir, '.env'), configFile: path.join(dir, 'c.json'), onListenerError: (e) => errors.push(e) }));
  let told = false;
  registry.onChange(() => {
    throw new Error('listener bug');
  });
  registry.onChange(() => (told = true));
  const result = await registry.update({ FINAL_K: 6 });
  assert.is(result.source.FINAL_K, 'c.json');
  assert.ok(told);
  assert.is(errors.length, 1);
});

test('fromEnvironment: ENV_FILE and CONFIG_FILE choose the files; CONFIG_FILE defaults under DATA_DIR', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-registry-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'custom.env'), 'CONFIG_FILE=settings/app.json\nFINAL_K=21\n');
  const a = ConfigRegistry.fromEnvironment(gatewayConfigModel(), { ENV_FILE: 'custom.env' }, dir);
  assert.is(a.envFile, path.join(dir, 'custom.env'));
  assert.is(a.configFile, path.join(dir, 'settings/app.json'));
  assert.is(gatewayConfig(a).get('FINAL_K'), 21);

  const b = ConfigRegistry.fromEnvironment(gatewayConfigModel(), { DATA_DIR: 'var' }, dir);
  assert.is(b.envFile, path.join(dir, '.env'));
  assert.is(b.configFile, path.join(dir, 'var', 'switchboard.config.json'));
  const c = ConfigRegistry.fromEnvironment(gatewayConfigModel(), {}, dir);
  assert.is(c.configFile, path.join(dir, 'data', 'switchboard.config.json'));
});

test('the JSON config file cannot set an environment-only key: ignored on load, reported as a problem, kept as written on update', async () => {
  const { env, configFile, registry } = setup({ json: { ALERT_ALLOW_HTTP_LOOPBACK: true, OUTBOUND_ALLOW_HOSTS: '169.254.169.254', REPOS: { etc: '/etc' }, FINAL_K: 7 } });
  assert.is(registry.get('ALERT_ALLOW_HTTP_LOOPBACK'), false);
  assert.is(registry.get('OUTBOUND_ALLOW_HOSTS'), '');
  assert.equal(registry.get('REPOS'), {});
  assert.is(registry.effective().source.OUTBOUND_ALLOW_HOSTS, 'default');
  assert.is(registry.get('FINAL_K'), 7, 'other keys of the file still apply');
  for (const key of ['ALERT_ALLOW_HTTP_LOOPBACK', 'OUTBOUND_ALLOW_HOSTS', 'REPOS']) {
    assert.ok(registry.problems().some((p) => p.startsWith(`${key}: can only be set in the environment`)), key);
  }
  env.ALERT_ALLOW_HTTP_LOOPBACK = 'true';
  registry.reload();
  assert.is(registry.get('ALERT_ALLOW_HTTP_LOOPBACK'), true, 'the environment still sets it');
  await registry.update({ FINAL_K: 8 });
  const written = JSON.parse(readFileSync(configFile, 'utf8'));
  assert.is(written.OUTBOUND_ALLOW_HOSTS, '169.254.169.254', 'the file keeps what it held; nothing of the environment is written into it');
  assert.is(written.ALERT_ALLOW_HTTP_LOOPBACK, true);
});

test('a reload reports an object key (REPOS) changed only when its value changed', () => {
  const { env, registry } = setup();
  env.REPOS = '{"billing":"/srv/billing"}';
  assert.equal(registry.reload(), ['REPOS']);
  assert.equal(registry.reload(), [], 'the same REPOS parsed again is no change');
  env.REPOS = '{"billing":"/srv/other"}';
  assert.equal(registry.reload(), ['REPOS']);
});

test.run();
