import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigRegistry } from '../../../../host/platform/config/registry.js';
import { readListenAddress } from '../../../../host/platform/config/listen-address.js';
import { gatewayConfigModel } from '../../../support/gateway-config.js';

// npm start binds with readListenAddress before the configuration model loads; the registry,
// loaded after, must agree on every layer and every invalid value (host/main.ts refuses to serve
// when they differ).

const dirs: string[] = [];
test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Case {
  env?: Record<string, string>;
  envFile?: string;
  /** Written to <cwd>/data/switchboard.config.json unless `configAt` names another path (relative to cwd). */
  json?: unknown;
  configAt?: string;
}

function resolveBoth(c: Case): { early: { port: number; host: string }; registry: { port: number; host: string } } {
  const cwd = mkdtempSync(path.join(tmpdir(), 'switchboard-listen-'));
  dirs.push(cwd);
  if (c.envFile !== undefined) writeFileSync(path.join(cwd, '.env'), c.envFile);
  if (c.json !== undefined) {
    const file = path.join(cwd, c.configAt ?? 'data/switchboard.config.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof c.json === 'string' ? c.json : JSON.stringify(c.json));
  }
  const env = { ...c.env };
  const config = ConfigRegistry.fromEnvironment(gatewayConfigModel(), env, cwd);
  return { early: readListenAddress(env, cwd), registry: { port: config.get('PORT') as number, host: config.get('HOST') as string } };
}

const CASES: Array<[string, Case, { port: number; host: string }]> = [
  ['nothing set: the defaults', {}, { port: 8080, host: '0.0.0.0' }],
  ['the environment', { env: { PORT: '9001', HOST: '127.0.0.1' }, envFile: 'PORT=9002\nHOST=::1\n', json: { PORT: 9003 } }, { port: 9001, host: '127.0.0.1' }],
  ['the env file under an empty environment value', { env: { PORT: '', HOST: '' }, envFile: 'PORT=9002\nHOST=::1\n', json: { PORT: 9003, HOST: 'localhost' } }, { port: 9002, host: '::1' }],
  ['the config file under DATA_DIR (default ./data)', { json: { PORT: 9003, HOST: 'localhost' } }, { port: 9003, host: 'localhost' }],
  ['the config file under a DATA_DIR from the env file', { envFile: 'DATA_DIR=state\n', json: { PORT: '9004' }, configAt: 'state/switchboard.config.json' }, { port: 9004, host: '0.0.0.0' }],
  ['CONFIG_FILE from the environment', { env: { CONFIG_FILE: 'elsewhere.json' }, json: { HOST: '10.0.0.1', PORT: 0 }, configAt: 'elsewhere.json' }, { port: 0, host: '10.0.0.1' }],
  ['a PORT with spaces is read as a number', { env: { PORT: ' 9005 ' } }, { port: 9005, host: '0.0.0.0' }],
  ['an invalid environment value falls through to the env file', { env: { PORT: 'eighty' }, envFile: 'PORT=9006\n' }, { port: 9006, host: '0.0.0.0' }],
  ['out of range and fractional ports fall through to the config file', { env: { PORT: '70000' }, envFile: 'PORT=90.5\n', json: { PORT: 9007 } }, { port: 9007, host: '0.0.0.0' }],
  ['invalid config file values use the defaults', { json: { PORT: true, HOST: '' } }, { port: 8080, host: '0.0.0.0' }],
  ['a negative port is refused', { env: { PORT: '-1' } }, { port: 8080, host: '0.0.0.0' }],
  ['a config file that is not JSON uses the defaults', { json: '{"PORT": 9008' }, { port: 8080, host: '0.0.0.0' }],
  ['a config file holding an array uses the defaults', { json: '[1]' }, { port: 8080, host: '0.0.0.0' }],
  ['a HOST of numbers in the config file is refused', { json: { HOST: 127001 } }, { port: 8080, host: '0.0.0.0' }],
];

for (const [name, c, expected] of CASES) {
  test(`PORT and HOST read early agree with the configuration: ${name}`, () => {
    const { early, registry } = resolveBoth(c);
    assert.equal(registry, expected, 'the registry');
    assert.equal(early, expected, 'the early read');
  });
}

test.run();
