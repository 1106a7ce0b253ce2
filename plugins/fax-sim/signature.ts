import { createHmac } from 'node:crypto';

/** The header of the simulator's HMAC-SHA256 (hex) of the raw body, on callbacks and inbound faxes. */
export const SIGNATURE_HEADER = 'x-fax-sim-signature';

export function signSimBody(raw: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}
