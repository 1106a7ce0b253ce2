import type { FaxWebhookRequest } from './contracts/fax.js';
import { WebhookRejectedError } from './errors.js';
import { sameSecret } from './webhook-auth.js';

/** Header a PBX's dialplan sends its shared secret in (Faxbot's internal hooks). */
export const INTERNAL_SECRET_HEADER = 'x-internal-secret';

/**
 * Checks X-Internal-Secret against the plugin's shared secret in constant time. Unset secret:
 * the hook is refused with 503 (an internal hook is never open).
 */
export function checkInternalSecret(request: FaxWebhookRequest, secret: string | undefined, settingName: string): true {
  if (!secret) throw new WebhookRejectedError(503, 'no_secret', `${settingName} is not set`);
  const given = request.headers[INTERNAL_SECRET_HEADER];
  if (given === undefined || !sameSecret(given, secret)) throw new WebhookRejectedError(401, 'secret', 'invalid or missing X-Internal-Secret');
  return true;
}
