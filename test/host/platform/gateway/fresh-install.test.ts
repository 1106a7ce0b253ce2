import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { json, startGateway, tempDir } from '../../../support/gateway.js';
import { startChildGateway } from '../../../support/child-gateway.js';

const post = (url: string, p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

test('a fresh install is ready: no fax backend configured is a warning, not a failure', async () => {
  const gw = await startGateway({}, { watch: false });
  try {
    const res = await fetch(`${gw.url}/health/ready`);
    const report = await json(res);
    assert.is(res.status, 200, JSON.stringify(report));
    assert.is(report.status, 'ready');
    const fax = report.checks.find((c: { name: string }) => c.name === 'fax_backend');
    assert.is(fax.ok, true);
    assert.is(fax.warning, true);
    assert.match(fax.detail, /^not configured/);
  } finally {
    await gw.close();
  }
});

test('readiness does not call a judge server it cannot reach ok; being optional, it leaves the gateway ready', async () => {
  const gw = await startGateway({}, { watch: false });
  try {
    const res = await fetch(`${gw.url}/health/ready`);
    const report = await json(res);
    assert.is(res.status, 200, JSON.stringify(report));
    const judge = report.checks.find((c: { name: string }) => c.name === 'plugin:judge-selfhosted');
    assert.ok(judge, JSON.stringify(report.checks.map((c: { name: string }) => c.name)));
    assert.is(judge.ok, false, JSON.stringify(judge));
    assert.is(judge.optional, true);
    assert.match(judge.detail, /does not answer \((ECONNREFUSED|[^)]*)\)/);
    assert.not.match(judge.detail, /TypeError/);
  } finally {
    await gw.close();
  }
});

test('without ghostscript a fresh install is ready (a warning); a backend that renders TIFF is not', async () => {
  // A machine without gs: the child's PATH holds nothing (node is started by its full path).
  const dataDir = tempDir();
  const emptyPath = path.join(dataDir, 'bin');
  mkdirSync(emptyPath);
  const renderer = async (env: Record<string, string>) => {
    const child = await startChildGateway({ PATH: emptyPath, DATA_DIR: path.join(dataDir, env.FAX_BACKEND ?? 'fresh'), ENV_FILE: path.join(dataDir, 'none.env'), ...env });
    try {
      const res = await fetch(`${child.url}/health/ready`);
      const report = await json(res);
      return { status: res.status, check: report.checks.find((c: { name: string }) => c.name === 'pdf_renderer'), report };
    } finally {
      await child.kill();
    }
  };
  try {
    const fresh = await renderer({});
    assert.is(fresh.status, 200, JSON.stringify(fresh.report));
    assert.is(fresh.check.ok, true);
    assert.is(fresh.check.warning, true);
    assert.match(fresh.check.detail, /ghostscript \(gs\) not found/);
    const sip = await renderer({ FAX_BACKEND: 'sip' });
    assert.is(sip.status, 503);
    assert.is(sip.check.ok, false, JSON.stringify(sip.check));
    assert.match(sip.check.detail, /"sip" renders TIFF/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a fax backend chosen on purpose that is not active fails readiness', async () => {
  for (const backend of ['providerb', 'no-such-provider']) {
    const gw = await startGateway({ FAX_BACKEND: backend }, { watch: false });
    try {
      const res = await fetch(`${gw.url}/health/ready`);
      const report = await json(res);
      assert.is(res.status, 503, JSON.stringify(report));
      const fax = report.checks.find((c: { name: string }) => c.name === 'fax_backend');
      assert.is(fax.ok, false);
      assert.not.ok(fax.warning);
      assert.ok(fax.detail.includes(backend), fax.detail);
    } finally {
      await gw.close();
    }
  }
});

test('the first key minted without API_KEY must hold admin: any other is refused with 409 and nothing locks', async () => {
  const gw = await startGateway({}, { watch: false });
  try {
    const refused = await post(gw.url, '/admin/api-keys', { name: 'billing app', scopes: ['fax:send', 'fax:read'] });
    const body = await json(refused);
    assert.is(refused.status, 409, JSON.stringify(body));
    assert.is(body.code, 'would_lock_out');
    assert.match(body.detail, /API_KEY/);
    assert.match(body.detail, /"admin"/);
    // Nothing was minted: the operator still manages keys from this machine.
    const list = await fetch(`${gw.url}/admin/api-keys`);
    assert.is(list.status, 200);
    assert.equal((await json(list)).keys, []);

    const minted = await post(gw.url, '/admin/api-keys', { name: 'operator', scopes: ['admin'] });
    const admin = await json(minted);
    assert.is(minted.status, 201, JSON.stringify(admin));
    // From now on admin routes need a key, and the first key is one that works.
    assert.is((await fetch(`${gw.url}/admin/api-keys`)).status, 401);
    const withKey = await fetch(`${gw.url}/admin/api-keys`, { headers: { 'x-api-key': admin.token } });
    assert.is(withKey.status, 200);
    assert.is((await fetch(`${gw.url}/admin/settings`, { headers: { 'x-api-key': admin.token } })).status, 200);
    const scoped = await post(gw.url, '/admin/api-keys', { name: 'billing app', scopes: ['fax:send'] }, { 'x-api-key': admin.token });
    assert.is(scoped.status, 201);
  } finally {
    await gw.close();
  }
});

test('with API_KEY set, the bootstrap key mints any key: there is no one to lock out', async () => {
  const gw = await startGateway({ API_KEY: 'bootstrap-key-5c1e9a0f' }, { watch: false });
  try {
    const minted = await post(gw.url, '/admin/api-keys', { name: 'billing app', scopes: ['fax:send'] }, { 'x-api-key': 'bootstrap-key-5c1e9a0f' });
    assert.is(minted.status, 201, await minted.text());
  } finally {
    await gw.close();
  }
});

test.run();
