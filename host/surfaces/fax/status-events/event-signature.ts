import { createHmac } from 'node:crypto';

/** The signature header of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (docs/fax/webhooks.md). */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}
