import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startSmtpFake, type SmtpFake } from '../../../../fakes/smtp-server.js';
import { startGateway, until, type TestGateway } from '../../../../support/gateway.js';

/**
 * Fax to email against a real SMTP server on loopback (smtp-server, STARTTLS with a certificate
 * trusted through the plugin's tlsCa): attached or linked per mailbox, retried after 4xx, 5xx and
 * a relay that is down, delivered once across a restart, the password never shown.
 */
const KEY = 'fax-email-admin-key-3b9d';
const SIM_SECRET = 'fax-sim-email-secret-8c2e';
const SMTP_USER = 'fax-relay';
const SMTP_PASSWORD = 'smtp-password-never-shown-4f7a91';
const LINKED = '+15550001111';
const ATTACHED = '+15550002222';
let gw: TestGateway;
let smtp: SmtpFake;
let pdf: Buffer;

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${gw.url}${path}`, { method, headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

type Delivery = { id: string; inbound_id: string; mailbox: string; sink: string; document: string; state: string; attempts: number; last_error: string | null };

async function deliveriesOf(inbound: string): Promise<Delivery[]> {
  const res = await call('GET', `/admin/inbound-deliveries?inbound_id=${inbound}`);
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { deliveries: Delivery[] }).deliveries;
}

/** An inbound fax through fax-sim's signed hook, called at `to`. */
async function receive(to: string): Promise<string> {
  const body = JSON.stringify({ from: '+15550009999', to, pdf_base64: pdf.toString('base64') });
  const signature = createHmac('sha256', SIM_SECRET).update(body).digest('hex');
  const res = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': signature }, body });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

/** The deliveries of `inbound` that match, or undefined while none does (for until). */
async function deliveriesWhere(inbound: string, match: (d: Delivery) => boolean): Promise<Delivery[] | undefined> {
  const found = (await deliveriesOf(inbound)).filter(match);
  return found.length ? found : undefined;
}

const mailsAbout = (inbound: string) => smtp.received.filter((m) => m.mail.text?.includes(inbound));

test.before(async () => {
  pdf = await makePdf(2);
  smtp = await startSmtpFake({ user: SMTP_USER, password: SMTP_PASSWORD });
  gw = await startGateway({
    API_KEY: KEY,
    INBOUND_ENABLED: 'true',
    FAX_BACKEND: 'fax-sim',
    FAX_SIM_SECRET: SIM_SECRET,
    INBOUND_SINK_RETRY_BASE_MS: '100',
    INBOUND_SINK_POLL_MS: '50',
    INBOUND_SINK_LINK_TTL_SECONDS: '3',
    INBOUND_EMAIL_SMTP_HOST: 'localhost',
    INBOUND_EMAIL_SMTP_PORT: String(smtp.port),
    INBOUND_EMAIL_SMTP_USER: SMTP_USER,
    INBOUND_EMAIL_SMTP_PASSWORD: SMTP_PASSWORD,
    INBOUND_EMAIL_TLS_CA: smtp.ca,
    INBOUND_EMAIL_FROM: 'Fax <fax@gateway.test>',
  });
  await until(async () => ((await (await call('GET', '/plugins')).json()) as { plugins: Array<{ id: string; state: string }> }).plugins.find((p) => p.id === 'inbound-email')?.state === 'active', 10_000);
  for (const [name, number, document] of [['front', LINKED, 'link'], ['records', ATTACHED, 'attach']] as const) {
    const res = await call('POST', '/admin/mailboxes', { name, numbers: [{ match: 'exact', number }], sinks: [{ sink: 'inbound-email', recipients: [`${name}@clinic.test`, 'audit@clinic.test'], ...(document === 'attach' ? { document } : {}) }] });
    assert.is(res.status, 201, await res.clone().text());
  }
});

test.after(async () => {
  await gw.close();
  await smtp.close();
});

test('a mailbox set to attach: the email carries the PDF, over STARTTLS, authenticated', async () => {
  const inbound = await receive(ATTACHED);
  const [mail] = await until(() => (mailsAbout(inbound).length ? mailsAbout(inbound) : undefined), 10_000);
  assert.equal(mail!.envelopeTo.sort(), ['audit@clinic.test', 'records@clinic.test']);
  assert.ok(mail!.secure, 'the session switched to TLS (STARTTLS) before the message');
  assert.is(mail!.user, SMTP_USER);
  assert.is(mail!.mail.attachments.length, 1);
  assert.is(mail!.mail.attachments[0]!.contentType, 'application/pdf');
  assert.ok(mail!.mail.attachments[0]!.content.equals(pdf), 'the attachment is the stored PDF');
  assert.not.match(mail!.mail.text ?? '', /token=/);
  const [delivery] = await until(() => deliveriesWhere(inbound, (d) => d.state === 'delivered'));
  assert.equal([delivery!.mailbox, delivery!.sink, delivery!.document, delivery!.attempts], ['records', 'inbound-email', 'attach', 1]);
});

test('a mailbox set to link (the default): the email links the PDF, which answers until the token expires', async () => {
  const inbound = await receive(LINKED);
  const [mail] = await until(() => (mailsAbout(inbound).length ? mailsAbout(inbound) : undefined), 10_000);
  assert.is(mail!.mail.attachments.length, 0);
  const link = /(https?:\/\/\S+\/inbound\/\S+\/pdf\?token=\S+)/.exec(mail!.mail.text ?? '')?.[1];
  assert.ok(link, `a link in ${mail!.mail.text}`);
  const url = new URL(link!);
  const local = `${gw.url}${url.pathname}${url.search}`;
  const served = await fetch(local);
  assert.is(served.status, 200);
  assert.is(served.headers.get('content-type'), 'application/pdf');
  assert.ok(Buffer.from(await served.arrayBuffer()).equals(pdf), 'the link serves the fax');
  const refused = await until(async () => {
    const res = await fetch(local);
    return res.status === 200 ? undefined : res;
  }, 10_000, 200);
  assert.is(refused.status, 403);
  assert.is(((await refused.json()) as { code: string }).code, 'token_invalid');
});

for (const [what, fail] of [
  ['a 4xx answer', () => smtp.next(451)],
  ['a 5xx answer', () => smtp.next(554)],
  ['a relay that is down', () => smtp.stop()],
] as const) {
  test(`${what} is retried and the email arrives once the relay takes it`, async () => {
    await fail();
    const inbound = await receive(ATTACHED);
    const [failed] = await until(() => deliveriesWhere(inbound, (d) => d.last_error !== null), 10_000);
    assert.is(failed!.state, 'pending');
    if (what === 'a relay that is down') {
      assert.match(failed!.last_error!, /ECONNREFUSED|ESOCKET|ECONNECTION/);
      await smtp.start();
    } else assert.match(failed!.last_error!, what === 'a 4xx answer' ? /451/ : /554/);
    const [done] = await until(() => deliveriesWhere(inbound, (d) => d.state === 'delivered'), 10_000);
    assert.ok(done!.attempts >= 2, `attempts ${done!.attempts}`);
    assert.is(mailsAbout(inbound).length, 1);
  });
}

test('failures are counted in the metrics and logged, without the password', async () => {
  const metrics = await (await call('GET', '/metrics')).text();
  assert.match(metrics, /switchboard_inbound_sink_deliveries_total\{sink="inbound-email",outcome="retry"\} [1-9]/);
  assert.match(metrics, /switchboard_inbound_sink_deliveries_total\{sink="inbound-email",outcome="delivered"\} [1-9]/);
  assert.ok(gw.logs.some((line) => line.includes('inbound sink delivery failed; retrying')));
});

test('an inbound fax stored before a restart is emailed once after it', async () => {
  await gw.gateway.surfaces.fax.inbound.sinks.deliveries.stop();
  const inbound = await receive(LINKED);
  const [pending] = await deliveriesOf(inbound);
  assert.equal([pending!.state, pending!.attempts], ['pending', 0]);
  await gw.gateway.close();
  gw = await startGateway(gw.env, { dataDir: gw.dataDir });
  const [done] = await until(() => deliveriesWhere(inbound, (d) => d.state === 'delivered'), 15_000);
  assert.equal([done!.id, done!.attempts], [pending!.id, 1]);
  assert.is(mailsAbout(inbound).length, 1);
});

test('the SMTP password never appears in /plugins, its config, the delivery log or the logs', async () => {
  const relay = await until(async () => {
    const list = await (await call('GET', '/plugins')).text();
    return list.includes('inbound-email') ? list : undefined;
  });
  const config = await (await call('GET', '/plugins/inbound-email/config')).text();
  const deliveries = await (await call('GET', '/admin/inbound-deliveries?limit=100')).text();
  for (const [where, text] of [['/plugins', relay], ['config', config], ['deliveries', deliveries], ['logs', gw.logs.join('\n')]] as const) {
    assert.not.ok(text.includes(SMTP_PASSWORD), `the password is in ${where}`);
  }
  assert.match(config, /\*\*\*/);
});

test('a delivered email is sent again on redelivery, with the same Message-ID; an unknown delivery is 404', async () => {
  const inbound = await receive(ATTACHED);
  const [done] = await until(() => deliveriesWhere(inbound, (d) => d.state === 'delivered'), 10_000);
  const again = await call('POST', `/admin/inbound-deliveries/${done!.id}/redeliver`);
  assert.is(again.status, 202, await again.clone().text());
  await until(() => mailsAbout(inbound).length === 2, 10_000);
  const [first, second] = mailsAbout(inbound);
  assert.is(second!.mail.messageId, first!.mail.messageId);
  assert.is((await call('POST', '/admin/inbound-deliveries/no-such-delivery/redeliver')).status, 404);
  assert.is(((await (await call('GET', '/admin/inbound-deliveries/no-such-delivery')).json()) as { code: string }).code, 'inbound_delivery_not_found');
});

test('a mailbox sink must name recipients; the mailbox shows its sinks', async () => {
  const bad = await call('POST', '/admin/mailboxes', { name: 'empty', sinks: [{ sink: 'inbound-email', recipients: [] }] });
  assert.is(bad.status, 422);
  const box = (await (await call('GET', '/admin/mailboxes/front')).json()) as { sinks: Array<{ sink: string; document: string; recipients: string[] }> };
  assert.equal(box.sinks, [{ sink: 'inbound-email', recipients: ['front@clinic.test', 'audit@clinic.test'], document: 'link' }]);
});

test.run();
