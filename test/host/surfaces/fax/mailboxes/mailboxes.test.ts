import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';
import { mailboxFor, ruleTakenBy, type Mailbox } from '../../../../../host/surfaces/fax/mailboxes/mailbox-store.js';

const KEY = 'mailbox-admin-key-5c1e9a';
const SECRET = 'fax-sim-mailbox-secret-7d2b';
let gw: TestGateway;
let pdf: Buffer;

const call = (method: string, path: string, body?: unknown, key = KEY) =>
  fetch(`${gw.url}${path}`, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

/** An inbound fax delivered through fax-sim's signed hook, called at `to`. */
async function receive(to: string | undefined): Promise<string> {
  const body = JSON.stringify({ from: '+15550000009', ...(to ? { to } : {}), pdf_base64: pdf.toString('base64') });
  const signature = createHmac('sha256', SECRET).update(body).digest('hex');
  const res = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': signature }, body });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

test.before(async () => {
  pdf = await makePdf(1);
  gw = await startGateway({ API_KEY: KEY, INBOUND_ENABLED: 'true', FAX_BACKEND: 'fax-sim', FAX_SIM_SECRET: SECRET, INBOUND_DEFAULT_MAILBOX: 'front-desk', AUDIT_LOG_ENABLED: 'true' });
});
test.after(async () => {
  await gw.close();
});

test('routing: an exact number wins, then the longest prefix, else the default mailbox', () => {
  const boxes: Mailbox[] = [
    { name: 'billing', description: null, numbers: [{ match: 'prefix', number: '+1555' }], sinks: [], created_at: '', updated_at: '' },
    { name: 'claims', description: null, numbers: [{ match: 'prefix', number: '+155501' }, { match: 'exact', number: '+15559990000' }], sinks: [], created_at: '', updated_at: '' },
    { name: 'ceo', description: null, numbers: [{ match: 'exact', number: '+15550100000' }], sinks: [], created_at: '', updated_at: '' },
  ];
  assert.is(mailboxFor(boxes, '+15550100000', 'default'), 'ceo');
  assert.is(mailboxFor(boxes, '+15550100001', 'default'), 'claims');
  assert.is(mailboxFor(boxes, '+15551234567', 'default'), 'billing');
  assert.is(mailboxFor(boxes, '+15559990000', 'default'), 'claims');
  assert.is(mailboxFor(boxes, '+4930123', 'default'), 'default');
  assert.is(mailboxFor(boxes, undefined, 'default'), 'default');
  assert.equal(ruleTakenBy(boxes, 'new', [{ match: 'prefix', number: '+1555' }]), { rule: { match: 'prefix', number: '+1555' }, mailbox: 'billing' });
  assert.is(ruleTakenBy(boxes, 'billing', [{ match: 'prefix', number: '+1555' }]), undefined);
});

test('create, read, replace and delete a mailbox; every write is audited', async () => {
  const created = await call('POST', '/admin/mailboxes', { name: 'billing', description: 'Accounts', numbers: [{ match: 'prefix', number: '+1555020' }] });
  assert.is(created.status, 201);
  assert.equal(((await created.json()) as { numbers: unknown }).numbers, [{ match: 'prefix', number: '+1555020' }]);
  const again = await call('POST', '/admin/mailboxes', { name: 'billing', numbers: [] });
  assert.is(again.status, 409);
  assert.is(((await again.json()) as { code: string }).code, 'mailbox_exists');
  const listed = (await (await call('GET', '/admin/mailboxes')).json()) as { mailboxes: Array<{ name: string }>; default_mailbox: string };
  assert.equal(listed.mailboxes.map((m) => m.name), ['billing']);
  assert.is(listed.default_mailbox, 'front-desk');
  const replaced = await call('PUT', '/admin/mailboxes/billing', { description: null, numbers: [{ match: 'exact', number: '+15550201111' }, { match: 'prefix', number: '+1555020' }] });
  assert.is(replaced.status, 200);
  assert.is(((await (await call('GET', '/admin/mailboxes/billing')).json()) as { numbers: unknown[] }).numbers.length, 2);
  assert.is((await call('DELETE', '/admin/mailboxes/billing')).status, 204);
  const gone = await call('GET', '/admin/mailboxes/billing');
  assert.is(gone.status, 404);
  assert.is(((await gone.json()) as { code: string }).code, 'mailbox_not_found');
  assert.is((await call('DELETE', '/admin/mailboxes/billing')).status, 404);
  const audit = await until(async () => {
    const rows = await gatewayDb(gw.gateway).selectFrom('audit_events').select('event').where('event', 'like', 'mailbox_%').orderBy('id').execute();
    return rows.length === 3 && rows.map((r) => r.event);
  });
  assert.equal(audit, ['mailbox_created', 'mailbox_updated', 'mailbox_deleted']);
});

test('bad input is refused with its field, a number belongs to one mailbox, and the routes need admin', async () => {
  const badName = await call('POST', '/admin/mailboxes', { name: 'Bad Name', numbers: [] });
  assert.is(badName.status, 422);
  assert.match(((await badName.json()) as { detail: string }).detail, /^name: /);
  const badNumber = await call('POST', '/admin/mailboxes', { name: 'x', numbers: [{ match: 'exact', number: 'call me' }] });
  assert.is(badNumber.status, 422);
  assert.match(((await badNumber.json()) as { detail: string }).detail, /^numbers\.0\.number: /);
  assert.is((await call('POST', '/admin/mailboxes', { name: 'claims', numbers: [{ match: 'prefix', number: '+1666' }] })).status, 201);
  const clash = await call('POST', '/admin/mailboxes', { name: 'other', numbers: [{ match: 'prefix', number: '+1666' }] });
  assert.is(clash.status, 409);
  assert.equal(await clash.json(), { detail: '+1666 is routed to mailbox "claims" already', code: 'mailbox_number_taken' });
  const minted = (await (await call('POST', '/admin/api-keys', { name: 'reader', scopes: ['inbound:list'] })).json()) as { token: string };
  assert.is((await call('GET', '/admin/mailboxes', undefined, minted.token)).status, 403);
  assert.is((await call('DELETE', '/admin/mailboxes/claims')).status, 204);
});

test('an inbound fax is routed by its called number and shows its mailbox; the listing filters by mailbox', async () => {
  assert.is((await call('POST', '/admin/mailboxes', { name: 'sales', numbers: [{ match: 'prefix', number: '+1555777' }] })).status, 201);
  const toSales = await receive('+15557770001');
  const elsewhere = await receive('+4930555');
  const unknown = await receive(undefined);
  const one = (await (await call('GET', `/inbound/${toSales}`)).json()) as { mailbox: string };
  assert.is(one.mailbox, 'sales');
  assert.is(((await (await call('GET', `/inbound/${elsewhere}`)).json()) as { mailbox: string }).mailbox, 'front-desk');
  assert.is(((await (await call('GET', `/inbound/${unknown}`)).json()) as { mailbox: string }).mailbox, 'front-desk');
  const sales = (await (await call('GET', '/inbound?mailbox=sales')).json()) as { faxes: Array<{ id: string; mailbox: string }> };
  assert.equal(sales.faxes.map((f) => f.id), [toSales]);
  const desk = (await (await call('GET', '/inbound?mailbox=front-desk')).json()) as { faxes: Array<{ id: string }> };
  assert.equal(desk.faxes.map((f) => f.id).sort(), [elsewhere, unknown].sort());
});

test.run();
