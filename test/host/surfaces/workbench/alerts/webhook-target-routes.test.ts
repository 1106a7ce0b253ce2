import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, json, type TestGateway } from '../../../../support/gateway.js';
import { webhookTargetId } from '../../../../../host/surfaces/workbench/alerts/webhook-targets.js';
import { gatewayConfig } from '../../../../support/gateway-config.js';

// POST /admin/integrations/webhooks/targets and DELETE .../targets/{id}: one target at a time, for
// clients that only ever see masked URLs. Keys are required here, so access is checked too. Where a
// target may connect (loopback, private, metadata addresses) is the outbound guard's rule at
// delivery, tested with the alert sinks; here the write-time rules of PUT apply.
const BOOT = 'webhook-targets-boot-key-91c2';
const TARGETS = '/admin/integrations/webhooks/targets';
let gw: TestGateway;

const call = (method: string, path: string, body?: unknown, key: string | null = BOOT, contentType = 'application/json') =>
  fetch(`${gw.url}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
const stored = () => gatewayConfig(gw.gateway.config).get('WEBHOOK_TARGETS') ?? '';

test.before(async () => {
  gw = await startGateway({ API_KEY: BOOT, AUDIT_LOG_ENABLED: 'true', ALERT_EVAL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'warn' });
});
test.after(async () => {
  await gw?.close();
});

test('add is idempotent, remove of an unknown id is 404, every URL masked', async () => {
  const url = 'https://hooks.example.net/secret-123';
  let res = await call('POST', TARGETS, { url });
  assert.is(res.status, 201);
  let body = await json(res);
  assert.is(body.id, webhookTargetId(url));
  assert.not.ok(JSON.stringify(body).includes('secret-123'));
  res = await call('POST', TARGETS, { url });
  assert.is(res.status, 201);
  assert.is((await json(res)).targets.length, 1);
  res = await call('POST', TARGETS, { url: 'https://a.example.net/x,https://b.example.net/y' });
  assert.is(res.status, 422);
  res = await call('DELETE', `${TARGETS}/plugin:alert-webhook-000000000000`);
  assert.is(res.status, 404);
  assert.is((await json(res)).code, 'alert_target_not_found');
  res = await call('DELETE', `${TARGETS}/${webhookTargetId(url)}`);
  assert.is(res.status, 200);
  body = await json(res);
  assert.equal(body.targets, []);
  assert.is(stored(), '');
});

test('malformed and oversized bodies and refused URLs are 4xx with detail and code, and store nothing', async () => {
  const cases: Array<[unknown, string | undefined, number]> = [
    ['{"url": ', 'application/json', 400],
    [{}, undefined, 422],
    [{ url: '' }, undefined, 422],
    [{ url: 'https://hooks.example.net/x', extra: 1 }, undefined, 422],
    [{ url: `https://hooks.example.net/${'a'.repeat(2100)}` }, undefined, 422],
    [{ url: 'http://hooks.example.net/plain-http' }, undefined, 422],
    [{ url: 'not a url' }, undefined, 422],
  ];
  for (const [body, type, status] of cases) {
    const res = await call('POST', TARGETS, body, BOOT, type ?? 'application/json');
    assert.is(res.status, status, `${JSON.stringify(body)} -> ${res.status}`);
    const answer = await json(res);
    assert.type(answer.detail, 'string');
    assert.type(answer.code, 'string');
  }
  const huge = await call('POST', TARGETS, JSON.stringify({ url: `https://hooks.example.net/${'a'.repeat(2_000_000)}` }));
  assert.ok([413, 422].includes(huge.status), `a 2 MB body -> ${huge.status}`);
  const badId = await call('DELETE', `${TARGETS}/not-an-id`);
  assert.is(badId.status, 400);
  assert.is(stored(), '');
});

test('without a key 401, with a key lacking admin 403; nothing changes', async () => {
  assert.is((await call('POST', TARGETS, { url: 'https://hooks.example.net/a' }, null)).status, 401);
  const minted = await call('POST', '/admin/api-keys', { name: 'reader', scopes: ['fax:read'] });
  assert.is(minted.status, 201);
  const reader = (await json(minted)).token as string;
  assert.is((await call('POST', TARGETS, { url: 'https://hooks.example.net/a' }, reader)).status, 403);
  assert.is((await call('DELETE', `${TARGETS}/plugin:alert-webhook-000000000000`, undefined, reader)).status, 403);
  assert.is(stored(), '');
});

test('each add and remove is audited, without the URL', async () => {
  const url = 'https://hooks.example.net/audited-secret';
  assert.is((await call('POST', TARGETS, { url })).status, 201);
  assert.is((await call('DELETE', `${TARGETS}/${webhookTargetId(url)}`)).status, 200);
  const logs = await json(await call('GET', '/admin/logs?event=settings_changed&limit=10'));
  const changes = logs.records.filter((r: { event: string }) => r.event === 'settings_changed');
  assert.ok(changes.length >= 2, JSON.stringify(logs));
  assert.not.ok(JSON.stringify(logs).includes('audited-secret'));
});

test.run();
