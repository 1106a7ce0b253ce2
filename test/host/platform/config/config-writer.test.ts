import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { AuditLog } from '../../../../host/platform/audit/audit-log.js';
import { ConfigWriter } from '../../../../host/platform/config/config-writer.js';
import { ConfigFileUnreadableError, ConfigRegistry, ConfigValidationError } from '../../../../host/platform/config/registry.js';
import { gatewayConfigModel } from '../../../support/gateway-config.js';

const dirs: string[] = [];
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function harness(options: { env?: NodeJS.ProcessEnv; file?: string } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-config-writer-'));
  dirs.push(dir);
  const configFile = path.join(dir, 'switchboard.config.json');
  if (options.file !== undefined) writeFileSync(configFile, options.file);
  const config = new ConfigRegistry({ model: gatewayConfigModel(), env: { ...options.env }, envFile: path.join(dir, 'none.env'), configFile });
  const audit = new AuditLog({ enabled: () => true, file: () => undefined, logger: pino({ level: 'silent' }) });
  const records: Array<Record<string, unknown>> = [];
  audit.subscribe((r) => records.push(r));
  return { config, configFile, records, writer: new ConfigWriter({ config, audit }) };
}

/** The issues the write itself refuses `patch` with. */
async function refusal(writer: ConfigWriter, patch: Record<string, unknown>) {
  try {
    await writer.write(patch, { event: 'settings_changed', by: 'local' });
  } catch (err) {
    if (err instanceof ConfigValidationError) return err.issues;
    throw err;
  }
  return [];
}

test('the check names what the write would refuse, the same way, and stores nothing', async () => {
  const { writer, configFile } = harness({ file: JSON.stringify({ CLEANUP_INTERVAL_MINUTES: -3 }) });
  const patch = { MAX_FILE_SIZE_MB: 'lots', NOPE: 1, DATA_DIR: '/elsewhere', FAX_PAPER_SIZE: 'a4' };
  const issues = await writer.check(patch);
  assert.equal(
    issues.map((i) => i.key),
    ['MAX_FILE_SIZE_MB', 'NOPE', 'DATA_DIR', 'CLEANUP_INTERVAL_MINUTES'],
    'each bad key in the order sent, an environment-only key too, then a bad value already in the file',
  );
  assert.match(issues.find((i) => i.key === 'CLEANUP_INTERVAL_MINUTES')!.message, /stored in switchboard\.config\.json/);
  assert.equal(JSON.parse(readFileSync(configFile, 'utf8')), { CLEANUP_INTERVAL_MINUTES: -3 }, 'nothing stored');
  assert.equal(await refusal(writer, patch), issues);
});

test('the check accepts what the write stores: a nested section, null, the secret mask', async () => {
  const { writer, configFile } = harness();
  const patch = { system_one: { timeout_s: 12 }, FAX_PAPER_SIZE: null, LLM_GATEWAY_API_KEY: '***' };
  assert.equal(await writer.check(patch), []);
  assert.not.ok(existsSync(configFile), 'the check wrote nothing');
  assert.equal(await refusal(writer, patch), []);
  assert.is(JSON.parse(readFileSync(configFile, 'utf8')).system_one.timeout_s, 12);
});

test('a write answers the keys changed, written and still overridden by the environment, with the advisors\' warnings, and is audited by key name', async () => {
  const { writer, config, records } = harness({ env: { MAX_FILE_SIZE_MB: '5' } });
  config.addAdvisor((written) => (written.includes('FAX_PAPER_SIZE') ? ['paper size noted'] : []));
  const secret = 'llm-secret-value-4410';
  const done = await writer.write({ MAX_FILE_SIZE_MB: 12, FAX_PAPER_SIZE: 'a4', LLM_GATEWAY_API_KEY: secret }, { event: 'config_changed', by: 'key-1' });
  assert.equal([...done.changed].sort(), ['FAX_PAPER_SIZE', 'LLM_GATEWAY_API_KEY']);
  assert.equal(done.written, ['MAX_FILE_SIZE_MB', 'FAX_PAPER_SIZE', 'LLM_GATEWAY_API_KEY']);
  assert.equal(done.envOverridden, ['MAX_FILE_SIZE_MB']);
  assert.equal(done.warnings, ['paper size noted']);
  assert.is(done.config.LLM_GATEWAY_API_KEY, '***', 'the answer is masked');
  assert.is(config.get('MAX_FILE_SIZE_MB'), 5, 'the environment still wins');
  assert.equal(records, [
    {
      ts: records[0]!.ts,
      event: 'config_changed',
      keys: 'FAX_PAPER_SIZE LLM_GATEWAY_API_KEY MAX_FILE_SIZE_MB',
      written: 'MAX_FILE_SIZE_MB FAX_PAPER_SIZE LLM_GATEWAY_API_KEY',
      changed: done.changed.join(' '),
      env_overridden: 'MAX_FILE_SIZE_MB',
      by: 'key-1',
    },
  ]);
  assert.not.ok(JSON.stringify(records).includes(secret));
  // a write that changes nothing is audited all the same
  const again = await writer.write({ FAX_PAPER_SIZE: 'a4' }, { event: 'settings_changed', by: 'local' });
  assert.equal(again.changed, []);
  assert.is(records.length, 2);
  assert.is(records[1]!.event, 'settings_changed');
});

test('a config file nobody can read: the check names it, the write refuses and leaves it as it is', async () => {
  const { writer, configFile, records } = harness({ file: '{not json' });
  const issues = await writer.check({ FAX_PAPER_SIZE: 'a4' });
  assert.equal(issues.map((i) => i.key), ['switchboard.config.json']);
  try {
    await writer.write({ FAX_PAPER_SIZE: 'a4' }, { event: 'config_changed', by: 'local' });
    assert.unreachable('the write went through');
  } catch (err) {
    assert.instance(err, ConfigFileUnreadableError);
  }
  assert.is(readFileSync(configFile, 'utf8'), '{not json');
  assert.equal(records, [], 'a refused write is not audited');
});

test.run();
