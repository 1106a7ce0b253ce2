import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conformance, startPlugin } from 'switchboard/sdk/testing';
import plugin from '../../../plugins/inbound-email/index.js';
import { startSmtpFake, type SmtpFake } from '../../fakes/smtp-server.js';

/** The inbound-sink conformance suite and the plugin's own rules, against a real SMTP server on loopback. */
const PASSWORD = 'kit-smtp-password-2a61c';
let smtp: SmtpFake;
// As the manifest declares it: the relay's host is allowed because a setting names it, so it passes the outbound guard.
const EGRESS = ['settings:smtpHost'];
const settings = () => ({ smtpHost: 'localhost', smtpPort: smtp.port, smtpUser: 'kit', smtpPassword: PASSWORD, tlsCa: smtp.ca, from: 'fax@gateway.test' });

test.before(async () => {
  smtp = await startSmtpFake({ user: 'kit', password: PASSWORD });
});
test.after(async () => {
  await smtp.close();
});

test('the inbound-sink conformance suite passes', async () => {
  for (const c of conformance['inbound-sink']({ plugin, settings: settings(), egress: EGRESS })) await c.run();
  assert.ok(smtp.received.length >= 2, 'the link and the attach cases were mailed');
});

test('a relay host set at run time on loopback is refused by the outbound guard unless OUTBOUND_ALLOW_HOSTS names it', async () => {
  const before = smtp.received.length;
  const started = await startPlugin(plugin, { settings: settings(), egress: EGRESS, outboundAllowHosts: [] });
  try {
    const result = await started.instance.providers['inbound-sink']!.deliver({
      delivery_id: 'guard-1',
      fax: { id: 'f1', mailbox: 'm', from: null, to: null, pages: 1, received_at: new Date().toISOString() },
      recipients: ['a@clinic.test'],
      document: { mode: 'attach', filename: 'fax.pdf', pdf: Buffer.from('%PDF-1.4') },
    });
    assert.is(result.ok, false);
    assert.match(result.detail ?? '', /OUTBOUND_ALLOW_HOSTS/);
    assert.is(smtp.received.length, before, 'nothing reached the relay');
  } finally {
    await started.stop();
  }
});

test('a wrong password fails the delivery without saying the password; a bad recipient fails for good', async () => {
  const started = await startPlugin(plugin, { settings: { ...settings(), smtpPassword: `${PASSWORD}-wrong` }, egress: EGRESS });
  try {
    const sink = started.instance.providers['inbound-sink']!;
    const base = { delivery_id: 'auth-1', fax: { id: 'f2', mailbox: 'm', from: null, to: null, pages: 1, received_at: new Date().toISOString() }, document: { mode: 'attach' as const, filename: 'fax.pdf', pdf: Buffer.from('%PDF-1.4') } };
    const refused = await sink.deliver({ ...base, recipients: ['a@clinic.test'] });
    assert.is(refused.ok, false);
    assert.is(refused.permanent, undefined);
    assert.match(refused.detail ?? '', /535/);
    assert.not.ok((refused.detail ?? '').includes(PASSWORD), 'the password is not in the detail');
    const bad = await sink.deliver({ ...base, recipients: ['not an address'] });
    assert.equal([bad.ok, bad.permanent], [false, true]);
  } finally {
    await started.stop();
  }
});

test('without STARTTLS trust (no tlsCa) the self-signed relay is refused: verification stays on', async () => {
  const { tlsCa: _, ...untrusted } = settings();
  const started = await startPlugin(plugin, { settings: untrusted, egress: EGRESS });
  try {
    const result = await started.instance.providers['inbound-sink']!.deliver({
      delivery_id: 'tls-1',
      fax: { id: 'f3', mailbox: 'm', from: null, to: null, pages: 1, received_at: new Date().toISOString() },
      recipients: ['a@clinic.test'],
      document: { mode: 'link', filename: 'fax.pdf', url: 'https://gateway.test/x', expires_at: new Date().toISOString() },
    });
    assert.is(result.ok, false);
    assert.match(result.detail ?? '', /certificate/i);
  } finally {
    await started.stop();
  }
});

test.run();
