import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigRegistry } from '../../../../host/platform/config/registry.js';
import { pluginEnvironment } from '../../../../host/platform/plugins/plugin-environment.js';
import { removeDir, tempDir } from '../../../support/gateway.js';
import { gatewayConfig, gatewayConfigModel } from '../../../support/gateway-config.js';

const dir = tempDir();
test.after(() => removeDir(dir));

const registry = (env: NodeJS.ProcessEnv, envFileText: string) => {
  const envFile = path.join(dir, `${Math.random().toString(36).slice(2)}.env`);
  writeFileSync(envFile, envFileText);
  return new ConfigRegistry({ model: gatewayConfigModel(), env, envFile, configFile: path.join(dir, 'none.json') });
};

test('DATABASE_URL from the env file reaches plugins that declare it, as the gateway uses it', () => {
  const env = {};
  const plugin = pluginEnvironment(env, registry(env, 'DATABASE_URL=postgres://u@db.example/switchboard\n'));
  assert.is(plugin.env.DATABASE_URL, 'postgres://u@db.example/switchboard');
  assert.ok('DATABASE_URL' in plugin.env);
});

test('the process environment wins, and an unset DATABASE_URL stays unset', () => {
  const env = { DATABASE_URL: 'postgres://u@env.example/db' };
  const plugin = pluginEnvironment(env, registry(env, 'DATABASE_URL=postgres://u@file.example/db\n'));
  assert.is(plugin.env.DATABASE_URL, 'postgres://u@env.example/db');
  assert.is(plugin.runtimeVariable('DATABASE_URL'), false);
  const none = pluginEnvironment({}, registry({}, ''));
  assert.is(none.env.DATABASE_URL, undefined);
  assert.not.ok('DATABASE_URL' in none.env);
});

test('SELFHOSTED_HTTP_PORT written to the config file reaches the self-hosted judge plugin, as the judge server reads it', () => {
  const configFile = path.join(dir, 'judge-port.json');
  writeFileSync(configFile, JSON.stringify({ SELFHOSTED_HTTP_PORT: 58181 }));
  const config = gatewayConfig(new ConfigRegistry({ model: gatewayConfigModel(), env: {}, envFile: path.join(dir, 'none.env'), configFile }));
  assert.is(config.get('SELFHOSTED_HTTP_PORT'), 58181);
  assert.is(pluginEnvironment({}, config).env.SELFHOSTED_HTTP_PORT, '58181');
});

test.run();
