import { isIP } from 'node:net';
import type { Transporter } from 'nodemailer';
import { definePlugin, EgressDeniedError, requireSettings, type InboundSinkDelivery, type InboundSinkResult } from 'switchboard/sdk';
import { faxMessage } from './message.js';
import { emailEnv, emailSettings } from './settings.js';

/** An address nodemailer can put in an envelope: local part, one "@", a domain (display names are the From's only). */
const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/;

/**
 * Inbound faxes by email: one message per delivery to the mailbox's recipients through an SMTP
 * relay, STARTTLS required unless told otherwise. The relay's address comes through the egress
 * client's resolveAddress (the manifest's `settings:smtpHost` entry, and the outbound guard for a
 * host set at run time); the password is a secret and never leaves the SMTP AUTH exchange.
 */
export default definePlugin({
  settings: emailSettings,
  env: emailEnv,
  start(ctx) {
    const settings = requireSettings('inbound-email', ctx.settings, ['smtpHost', 'from'], emailEnv);
    const resolveAddress = ctx.http.resolveAddress;
    if (!resolveAddress) throw new Error('inbound-email needs a host whose egress client resolves SMTP addresses (host 0.1 with inbound-sink)');
    const { smtpHost: host, smtpPort: port, smtpPassword: password } = settings;
    // Whatever an SMTP library puts in an error stays readable; the password does not.
    const scrub = (text: string) => (password ? text.split(password).join('***') : text);
    const sent = ctx.metrics.counter('emails_total', 'Inbound fax emails by outcome (sent, failed).', ['outcome']);

    async function transport(): Promise<Transporter> {
      // nodemailer is loaded with the first email, not at the gateway's start.
      const { createTransport } = await import('nodemailer');
      const { address } = await resolveAddress!.call(ctx.http, host, port);
      return createTransport({
        host: address,
        port,
        secure: settings.smtpSecure,
        requireTLS: settings.requireTls,
        ...(settings.smtpUser ? { auth: { user: settings.smtpUser, pass: password ?? '' } } : {}),
        // The certificate is checked against the configured name, not the address connected to.
        tls: { ...(isIP(host) ? {} : { servername: host }), ...(settings.tlsCa ? { ca: [settings.tlsCa] } : {}), minVersion: 'TLSv1.2' },
        name: 'switchboard',
        connectionTimeout: 20_000,
        greetingTimeout: 20_000,
        socketTimeout: 60_000,
        logger: false,
        debug: false,
      });
    }

    async function deliver(delivery: InboundSinkDelivery, signal?: AbortSignal): Promise<InboundSinkResult> {
      if (signal?.aborted) return { ok: false, detail: 'aborted before sending' };
      const invalid = delivery.recipients.filter((r) => !ADDRESS.test(r));
      if (!delivery.recipients.length || invalid.length) return { ok: false, permanent: true, detail: `not an email address: ${invalid.join(', ') || '(no recipients)'}` };
      let mailer: Transporter | undefined;
      try {
        mailer = await transport();
        const aborted = new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted: the host stopped waiting')), { once: true }));
        const message = faxMessage(delivery);
        await Promise.race([
          mailer.sendMail({ from: settings.from, to: delivery.recipients, messageId: `<${delivery.delivery_id}@switchboard.inbound>`, ...message }),
          aborted,
        ]);
        sent.inc({ outcome: 'sent' });
        return { ok: true };
      } catch (err) {
        sent.inc({ outcome: 'failed' });
        if (err instanceof EgressDeniedError || (err as Error).name === 'OutboundAddressError') return { ok: false, detail: scrub((err as Error).message) };
        const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
        const detail = e.responseCode ? `the SMTP server answered ${e.responseCode}: ${e.response ?? e.message}` : `${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`;
        // Every SMTP answer is retried (the host bounds the attempts): a 5xx of a relay being fixed passes later.
        return { ok: false, detail: scrub(detail).slice(0, 500) };
      } finally {
        mailer?.close();
      }
    }

    return {
      providers: { 'inbound-sink': { deliver } },
      health: () => ({ ok: true, info: { host, port, tls: settings.smtpSecure ? 'tls' : settings.requireTls ? 'starttls required' : 'starttls when offered' } }),
    };
  },
});
