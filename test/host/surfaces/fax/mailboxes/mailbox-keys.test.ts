import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';

/**
 * Keys limited to mailboxes: such a key sees only its mailboxes' inbound faxes on every route
 * (lists, one fax, its PDF, deletion), over MCP and in inbound.received events to its
 * subscriptions; another mailbox's fax answers 404 as if absent. A key without the limit sees all.
 */
const KEY = 'mailbox-keys-admin-7f3a';
const SECRET = 'fax-sim-mailbox-keys-secret-2c9d';
let gw: TestGateway;
let receiver: AlertReceiver;
let pdf: Buffer;
let salesFax: string;
let deskFax: string;

const call = (method: string, path: string, body?: unknown, key = KEY) =>
  fetch(`${gw.url}${path}`, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function mint(name: string, scopes: string[], limits?: Record<string, string[]>, by = KEY): Promise<{ key_id: string; token: string; limits: Record<string, string[]> }> {
  const res = await call('POST', '/admin/api-keys', { name, scopes, ...(limits ? { limits } : {}) }, by);
  assert.is(res.status, 201, await res.clone().text());
  return (await res.json()) as { key_id: string; token: string; limits: Record<string, string[]> };
}

/** An inbound fax delivered through fax-sim's signed hook, called at `to`. */
async function receive(to: string): Promise<string> {
  const body = JSON.stringify({ from: '+15550000009', to, pdf_base64: pdf.toString('base64') });
  const signature = createHmac('sha256', SECRET).update(body).digest('hex');
  const res = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': signature }, body });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

const listed = async (key: string, query = '') => ((await json(await call('GET', `/inbound${query}`, undefined, key))).faxes as Array<{ id: string }>).map((f) => f.id).sort();
const codeOf = async (res: Response) => ((await res.json()) as { code: string }).code;

test.before(async () => {
  pdf = await makePdf(1);
  receiver = await startAlertReceiver({ tls: false });
  gw = await startGateway({
    API_KEY: KEY, INBOUND_ENABLED: 'true', FAX_BACKEND: 'fax-sim', FAX_SIM_SECRET: SECRET, INBOUND_DEFAULT_MAILBOX: 'front-desk', AUDIT_LOG_ENABLED: 'true',
    ALERT_ALLOW_HTTP_LOOPBACK: 'true', WEBHOOK_DELIVERY_POLL_MS: '20',
  });
  assert.is((await call('POST', '/admin/mailboxes', { name: 'sales', numbers: [{ match: 'prefix', number: '+1555777' }] })).status, 201);
  salesFax = await receive('+15557770001');
  deskFax = await receive('+4930555');
});
test.after(async () => {
  await gw.close();
  await receiver.close();
});

test('a key limited to a mailbox lists, reads, downloads and deletes only its faxes; others answer 404', async () => {
  const sales = await mint('sales-reader', ['inbound:list', 'inbound:read'], { mailboxes: ['sales'] });
  assert.equal(sales.limits, { mailboxes: ['sales'] });
  assert.equal(await listed(sales.token), [salesFax]);
  assert.equal(await listed(sales.token, '?mailbox=front-desk'), [], 'asking for another mailbox finds nothing');
  assert.equal(await listed(sales.token, '?mailbox=sales'), [salesFax]);

  const own = await call('GET', `/inbound/${salesFax}`, undefined, sales.token);
  assert.is(own.status, 200);
  const { pdf_url } = (await own.json()) as { pdf_url: string };
  assert.is((await fetch(`${gw.url}${pdf_url}`)).status, 200, 'the link of a fax it may read works');
  assert.is((await call('GET', `/inbound/${salesFax}/pdf`, undefined, sales.token)).status, 200);

  const other = await call('GET', `/inbound/${deskFax}`, undefined, sales.token);
  assert.is(other.status, 404);
  assert.is(await codeOf(other), 'inbound_fax_not_found');
  const otherPdf = await call('GET', `/inbound/${deskFax}/pdf`, undefined, sales.token);
  assert.is(otherPdf.status, 404);
  assert.is(await codeOf(otherPdf), 'inbound_fax_not_found');
  const otherDelete = await call('DELETE', `/inbound/${deskFax}`, undefined, sales.token);
  assert.is(otherDelete.status, 404);
  assert.is(await codeOf(otherDelete), 'inbound_fax_not_found');
  assert.is((await call('GET', `/inbound/${deskFax}`)).status, 200, 'not deleted');

  // The same scopes without the limit see every mailbox.
  const all = await mint('all-reader', ['inbound:list', 'inbound:read']);
  assert.equal(all.limits, {});
  assert.equal(await listed(all.token), [salesFax, deskFax].sort());
  assert.is((await call('GET', `/inbound/${deskFax}/pdf`, undefined, all.token)).status, 200);
});

test('changing a key\'s limits applies on its next request, is audited, and cannot widen the caller\'s own', async () => {
  const key = await mint('desk-then-sales', ['inbound:list', 'inbound:read'], { mailboxes: ['front-desk'] });
  assert.equal(await listed(key.token), [deskFax]);
  const changed = await call('PATCH', `/admin/api-keys/${key.key_id}`, { limits: { mailboxes: ['sales'] } });
  assert.is(changed.status, 200);
  assert.equal(((await changed.json()) as { limits: unknown }).limits, { mailboxes: ['sales'] });
  assert.equal(await listed(key.token), [salesFax]);
  assert.is((await call('PATCH', `/admin/api-keys/${key.key_id}`, { limits: {} })).status, 200);
  assert.equal(await listed(key.token), [salesFax, deskFax].sort(), 'no limit: every mailbox');

  const unknown = await call('PATCH', `/admin/api-keys/${key.key_id}`, { limits: { tenants: ['a'] } });
  assert.is(unknown.status, 422);
  assert.is((await call('PATCH', '/admin/api-keys/0123456789abcdef', { limits: {} })).status, 404);

  // A manager limited to sales cannot mint or make a key beyond sales.
  const manager = await mint('sales-manager', ['keys:manage', 'inbound:list'], { mailboxes: ['sales'] });
  const wider = await call('POST', '/admin/api-keys', { name: 'x', scopes: ['inbound:list'] }, manager.token);
  assert.is(wider.status, 403);
  assert.is(await codeOf(wider), 'limit_beyond_caller');
  assert.is((await call('POST', '/admin/api-keys', { name: 'x', scopes: ['inbound:list'], limits: { mailboxes: ['sales', 'front-desk'] } }, manager.token)).status, 403);
  const narrow = await mint('sales-only', ['inbound:list'], { mailboxes: ['sales'] }, manager.token);
  const widen = await call('PATCH', `/admin/api-keys/${narrow.key_id}`, { limits: {} }, manager.token);
  assert.is(widen.status, 403);
  assert.is(await codeOf(widen), 'limit_beyond_caller');

  const audit = await until(async () => {
    const rows = await gatewayDb(gw.gateway).selectFrom('audit_events').select(['event', 'record']).where('event', 'in', ['key_minted', 'key_limits_changed']).orderBy('id').execute();
    const records = rows.map((r) => ({ event: r.event, ...(JSON.parse(r.record) as { key_id: string; limits?: string }) })).filter((r) => r.key_id === key.key_id);
    return records.length === 3 && records;
  });
  assert.equal(audit.map((r) => [r.event, r.limits]), [['key_minted', 'mailboxes=front-desk'], ['key_limits_changed', 'mailboxes=sales'], ['key_limits_changed', undefined]]);
});

test('over MCP a limited key lists and reads only its mailbox', async () => {
  const sales = await mint('sales-mcp', ['inbound:list', 'inbound:read'], { mailboxes: ['sales'] });
  const client = new Client({ name: 'mailbox-keys-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { 'X-API-Key': sales.token } } }));
  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
    const body = JSON.parse(result.content[0]!.text);
    return result.isError ? { error: body } : body;
  };
  try {
    assert.equal((await tool('list_inbound')).faxes.map((f: { id: string }) => f.id), [salesFax]);
    assert.is((await tool('get_inbound', { inbound_id: salesFax })).mailbox, 'sales');
    assert.is((await tool('get_inbound', { inbound_id: deskFax })).error?.code, 'inbound_fax_not_found');
  } finally {
    await client.close();
  }
});

test('inbound.received reaches a limited key\'s subscription only for its mailboxes; an unlimited key\'s for all', async () => {
  const sales = await mint('sales-hooks', ['inbound:list', 'webhooks:manage'], { mailboxes: ['sales'] });
  const all = await mint('all-hooks', ['inbound:list', 'webhooks:manage']);
  for (const [key, tag] of [[sales.token, 'sales'], [all.token, 'all']] as const) {
    const res = await call('POST', '/webhooks/subscriptions', { url: `${receiver.url}?${tag}`, events: ['inbound.received'] }, key);
    assert.is(res.status, 201, await res.clone().text());
  }
  const toSales = await receive('+15557770002');
  const toDesk = await receive('+4930556');
  const subjects = (tag: string) => receiver.received.filter((r) => r.path?.endsWith(`?${tag}`)).map((r) => r.body.data.id as string).sort();
  await until(() => subjects('all').length === 2, 10000, 20);
  assert.equal(subjects('all'), [toSales, toDesk].sort());
  // The limited subscription's delivery (had it been written) would have gone out with the others.
  const salesDeliveries = (await json(await call('GET', '/webhooks/deliveries', undefined, sales.token))).deliveries as Array<{ subject_id: string }>;
  assert.equal(salesDeliveries.map((d) => d.subject_id), [toSales]);
  await until(() => subjects('sales').length === 1, 10000, 20);
  assert.equal(subjects('sales'), [toSales]);
});

test.run();
