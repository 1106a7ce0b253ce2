import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { json, postFax, startGateway, tempDir, type TestGateway } from '../../../support/gateway.js';

// The most permissive umask: any mode below comes from the code, not from the process default.
process.umask(0);

const modeOf = (p: string) => (statSync(p).mode & 0o777).toString(8);
const send = (gw: TestGateway, method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

/** Every file and directory under `dir`, with its mode. */
function tree(dir: string): Array<{ path: string; dir: boolean; mode: string }> {
  const out: Array<{ path: string; dir: boolean; mode: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    out.push({ path: full, dir: entry.isDirectory(), mode: modeOf(full) });
    if (entry.isDirectory()) out.push(...tree(full));
  }
  return out;
}

test('with umask 0, every file holding secrets, numbers or documents is 0600 and its directories 0700', async () => {
  const base = tempDir();
  const state = path.join(base, 'state');
  const gw = await startGateway(
    {
      DATA_DIR: state,
      AUDIT_LOG_ENABLED: 'true',
      AUDIT_LOG_FILE: path.join(state, 'audit', 'audit.log'),
      ADMIN_SETTINGS_PERSIST_PATH: path.join(state, 'persist', 'service.env'),
      FAX_DISABLED: 'true',
    },
    { dataDir: base, watch: false },
  );
  try {
    // Plugin secrets, a config file write, a persisted env file, a stored document.
    let res = await send(gw, 'PUT', '/plugins/providera/config', { settings: { apiKey: 'pa-key-0001', apiSecret: 'pa-secret-0001' } });
    assert.is(res.status, 200, await res.text());
    res = await send(gw, 'POST', '/api/config', { FAX_PAPER_SIZE: 'a4' });
    assert.is(res.status, 200, await res.text());
    res = await send(gw, 'POST', '/admin/settings/persist');
    assert.is(res.status, 200, await res.text());
    res = await postFax(gw.url, '+15551234567', await makePdf(1));
    assert.is(res.status, 202, JSON.stringify(await json(res)));
    await gw.gateway.audit.flush();

    const expected = [
      'plugins.config.json',
      'switchboard.config.json',
      'switchboard.sqlite',
      path.join('audit', 'audit.log'),
      path.join('persist', 'service.env'),
    ].map((f) => path.join(state, f));
    for (const file of expected) assert.is(modeOf(file), '600', file);
    assert.is(modeOf(state), '700', 'DATA_DIR, created by the gateway');

    // Nothing under DATA_DIR is readable by others: the database's -wal/-shm, the stored PDF,
    // the upload temp directory, the manifests directory included.
    const entries = tree(state);
    assert.ok(entries.some((e) => e.path.endsWith('document.pdf')), 'the stored document is under DATA_DIR');
    assert.ok(entries.some((e) => e.path.endsWith('switchboard.sqlite-wal')), 'the database runs in WAL mode');
    const loose = entries.filter((e) => e.mode !== (e.dir ? '700' : '600'));
    assert.equal(loose, []);
  } finally {
    await gw.close();
  }
});

test('a plugin config store left 0644 by an earlier version is tightened to 0600 on its next write', async () => {
  const base = tempDir();
  mkdirSync(base, { recursive: true });
  const store = path.join(base, 'plugins.config.json');
  writeFileSync(store, '{}\n', { mode: 0o644 });
  const auditFile = path.join(base, 'audit.log');
  writeFileSync(auditFile, '', { mode: 0o644 });
  assert.is(modeOf(store), '644');
  const gw = await startGateway({ AUDIT_LOG_ENABLED: 'true', AUDIT_LOG_FILE: auditFile }, { dataDir: base, watch: false });
  try {
    const res = await send(gw, 'PUT', '/plugins/providera/config', { settings: { apiSecret: 'pa-secret-0002' } });
    assert.is(res.status, 200, await res.text());
    await gw.gateway.audit.flush();
    assert.is(modeOf(store), '600');
    assert.is(modeOf(auditFile), '600');
    assert.ok(existsSync(path.join(base, 'switchboard.sqlite')));
    assert.is(modeOf(path.join(base, 'switchboard.sqlite')), '600');
  } finally {
    await gw.close();
  }
});

test.run();
