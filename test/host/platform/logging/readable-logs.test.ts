import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { prettyLogLine } from '../../../../host/platform/logging/pretty-log-line.js';
import { resolvedLogFormat } from '../../../../host/platform/logging/log-format.js';
import { startGateway, until, writeFixturePlugin } from '../../../support/gateway.js';

test('a record reads as one line: time, level, message, fields; ids stay whole', () => {
  const line = prettyLogLine(JSON.stringify({ level: 40, time: Date.UTC(2026, 10, 25, 9, 8, 7, 6), pid: 1, hostname: 'h', service: 'switchboard', msg: 'fax job FAILED', job_id: '89547b76-1e02-4367-9a3d-3678d42c01f5', error: 'line busy' }));
  assert.is(line, '09:08:07.006 WARN  fax job FAILED  job_id=89547b76-1e02-4367-9a3d-3678d42c01f5 error="line busy"');
  assert.is(prettyLogLine('not json'), 'not json');
});

test('LOG_FORMAT auto is pretty at a terminal and JSON anywhere else', () => {
  assert.is(resolvedLogFormat('auto', { isTTY: true }), 'pretty');
  assert.is(resolvedLogFormat('auto', {}), 'json');
  assert.is(resolvedLogFormat('json', { isTTY: true }), 'json');
  assert.is(resolvedLogFormat('pretty', {}), 'pretty');
});

test('LOG_FORMAT=pretty: one readable line per event and one start-up banner naming URL, docs, data, database, keys and waiting plugins', async () => {
  const gw = await startGateway({ LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' }, { watch: false });
  try {
    assert.ok(gw.logs.length > 0);
    for (const line of gw.logs) assert.not.ok(line.startsWith('{'), `a JSON line in pretty mode: ${line}`);
    const at = gw.logs.findIndex((l) => / INFO  switchboard listening$/.test(l));
    assert.ok(at >= 0, gw.logs.join('\n'));
    const block = gw.logs.slice(at + 1).filter((l) => l.startsWith('    '));
    const text = block.join('\n');
    assert.match(text, `url        ${gw.url}`);
    assert.match(text, `docs       ${gw.url}/docs`);
    assert.match(text, `data       ${gw.dataDir}`);
    assert.match(text, /database   (sqlite|postgres) /);
    assert.match(text, /api keys   not required yet/);
    // One line however many plugins wait, each named once, none with its reason spread below.
    assert.match(text, /plugins    \d+ need settings \([a-z0-9-]+(, [a-z0-9-]+)*\): `switchboard plugins list` or the console's Plugins page says which/);
    assert.not.match(text, /^  alert-webhook/m);
    // The raw needs-config lines are gone from info: the banner says it once.
    assert.not.ok(gw.logs.some((l) => l.includes('needs-config')), gw.logs.join('\n'));
  } finally {
    await gw.close();
  }
});

test('lifecycle events are logged once each: plugin active, manifest rejected, manifest removed', async () => {
  const gw = await startGateway({ LOG_LEVEL: 'info' });
  const records = () => gw.logs.map((l) => JSON.parse(l) as { msg: string; plugin?: string; level: number; diagnostics?: string[] });
  const about = (id: string, msg: string) => records().filter((r) => r.plugin === id && r.msg === msg);
  try {
    const banner = records().find((r) => r.msg === 'switchboard listening') as unknown as { url: string; keys_required: boolean; waiting_for_settings: Record<string, string> };
    assert.is(banner.url, gw.url);
    assert.is(banner.keys_required, false);
    // One wording for what each waits for, without the plugin id repeated.
    assert.is(banner.waiting_for_settings['alert-webhook'], 'needs settings: url (ALERT_WEBHOOK_URL)');
    assert.match(banner.waiting_for_settings.providera!, /^needs settings: baseUrl \(PROVIDERA_BASE_URL\)/);

    writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
    await until(() => gw.gateway.kernel.get('echo')?.state === 'active', 5000);
    await gw.gateway.kernel.rescan();
    assert.is(about('echo', 'plugin active').length, 1);

    const bad = path.join(gw.pluginsDir, 'broken.json');
    writeFileSync(bad, JSON.stringify({ manifestVersion: 1, id: 'broken', name: 'Broken' }));
    await gw.gateway.kernel.rescan();
    await until(() => gw.gateway.kernel.get('broken')?.state === 'rejected', 5000);
    await gw.gateway.kernel.rescan();
    await gw.gateway.kernel.rescan();
    const rejected = about('broken', 'manifest rejected');
    assert.is(rejected.length, 1, JSON.stringify(rejected));
    assert.is(rejected[0]!.level, 40);
    assert.ok(rejected[0]!.diagnostics!.length > 0);

    rmSync(path.join(gw.pluginsDir, 'echo'), { recursive: true, force: true });
    await gw.gateway.kernel.rescan();
    await until(() => gw.gateway.kernel.get('echo') === undefined, 5000);
    assert.is(about('echo', 'manifest removed; plugin stopped').length, 1);
  } finally {
    await gw.close();
  }
});

test.run();
