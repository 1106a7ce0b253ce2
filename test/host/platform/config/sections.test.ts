import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigRegistry, ConfigValidationError } from '../../../../host/platform/config/registry.js';
import { renderEnvSnippet } from '../../../../host/platform/admin/env-snippet.js';
import { renderConfigTable } from '../../../../host/cli/config-docs.js';
import { gatewayConfig, gatewayConfigModel } from '../../../support/gateway-config.js';

const dirs: string[] = [];
test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function setup(json?: unknown, envFileText?: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-sections-'));
  dirs.push(dir);
  const envFile = path.join(dir, '.env');
  const configFile = path.join(dir, 'config.json');
  if (json !== undefined) writeFileSync(configFile, JSON.stringify(json));
  if (envFileText !== undefined) writeFileSync(envFile, envFileText);
  const env: NodeJS.ProcessEnv = {};
  return { env, configFile, registry: gatewayConfig(new ConfigRegistry({ model: gatewayConfigModel(), env, envFile, configFile })) };
}

test('a nested section is read from the JSON file as an object and reported under dotted keys', () => {
  const { registry } = setup({ system_one: { provider: 'selfhosted', timeout_s: 12 } });
  assert.is(registry.get('system_one.provider'), 'selfhosted');
  assert.is(registry.get('system_one.timeout_s'), 12);
  assert.is(registry.effective().source['system_one.provider'], 'config.json');
  assert.is(registry.get('system_one.max_retries'), 3, 'unset keys of a section keep their defaults');
  assert.is(registry.effective().source['system_one.max_retries'], 'default');
  assert.equal(registry.problems(), []);
});

test('the environment spells a nested key SECTION__KEY and wins over the file, env file included', () => {
  const { env, registry } = setup({ system_one: { provider: 'selfhosted' } }, 'SYSTEM_ONE__MAX_RETRIES=5\n');
  env.SYSTEM_ONE__PROVIDER = 'hosted';
  registry.reload();
  assert.is(registry.get('system_one.provider'), 'hosted');
  assert.is(registry.effective().source['system_one.provider'], 'env');
  assert.is(registry.get('system_one.max_retries'), 5);
  assert.is(registry.effective().source['system_one.max_retries'], 'env');
  // Any plugin id or alias is a valid name (checked against the manifests when used); this is not one.
  env.SYSTEM_ONE__PROVIDER = 'not a plugin id';
  registry.reload();
  assert.is(registry.get('system_one.provider'), 'selfhosted', 'an invalid env value falls through to the file');
  assert.ok(registry.problems().some((p) => p.startsWith('system_one.provider:')));
});

test('an unknown key inside a section is reported, not applied', () => {
  const { registry } = setup({ system_one: { provider: 'selfhosted', nosuch: 1 } });
  assert.ok(registry.problems().some((p) => p.includes('system_one.nosuch')));
  assert.is(registry.get('system_one.provider'), 'selfhosted');
});

test('updates take nested objects or dotted keys, validate, and store nested objects', async () => {
  const { configFile, registry } = setup({ FINAL_K: 7 });
  await registry.update({ system_one: { provider: 'selfhosted' } });
  await registry.update({ 'system_one.timeout_s': 9 });
  const stored = JSON.parse(readFileSync(configFile, 'utf8'));
  assert.equal(stored, { FINAL_K: 7, system_one: { provider: 'selfhosted', timeout_s: 9 } });
  assert.is(registry.get('system_one.timeout_s'), 9);
  let err: unknown;
  try {
    await registry.update({ system_one: { provider: 'else/where', nosuch: true } });
  } catch (e) {
    err = e;
  }
  assert.instance(err, ConfigValidationError);
  const keys = (err as ConfigValidationError).issues.map((i) => i.key).sort();
  assert.equal(keys, ['system_one.nosuch', 'system_one.provider']);
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), stored, 'nothing written on a bad update');
});

test('a change of a nested key is announced to listeners (live switch)', async () => {
  const { registry } = setup();
  const seen: string[][] = [];
  registry.onChange((keys) => seen.push(keys.map(String)));
  await registry.update({ system_one: { provider: 'selfhosted' } });
  assert.equal(seen, [['system_one.provider']]);
});

test('the env export and the settings table use the environment spelling of nested keys', () => {
  const { registry } = setup({ system_one: { provider: 'selfhosted' } });
  const snippet = renderEnvSnippet(registry, { reveal: false, all: false });
  assert.match(snippet, /^SYSTEM_ONE__PROVIDER=selfhosted$/m);
  assert.match(renderConfigTable(), /`system_one\.provider` \(env `SYSTEM_ONE__PROVIDER`\)/);
});

test.run();
