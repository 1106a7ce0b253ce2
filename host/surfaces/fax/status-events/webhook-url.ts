import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { alertReceiverUrlProblem } from '../../../../core/declarative/alert-sink.js';
import { faxErrors } from '../fax-errors.js';
import type { FaxConfig } from '../fax-settings.js';

/**
 * A status webhook URL as given (`callback_url`, a subscription's `url`): https, or plain http
 * to loopback in development (ALERT_ALLOW_HTTP_LOOPBACK, the rule of every receiver URL), and no
 * literal non-public address the outbound guard refuses. Hostnames are checked again after DNS
 * on every delivery.
 */
export function checkedWebhookUrl(field: string, value: string, deps: { config: FaxConfig; outbound: OutboundGuard }): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw faxErrors.error('webhook_url_refused', { field, reason: 'not a URL' });
  }
  if (url.username || url.password) throw faxErrors.error('webhook_url_refused', { field, reason: 'credentials in the URL are not allowed' });
  const problem = alertReceiverUrlProblem(url, deps.config.get('ALERT_ALLOW_HTTP_LOOPBACK'));
  if (problem) throw faxErrors.error('webhook_url_refused', { field, reason: problem });
  try {
    deps.outbound.assertLiteral(url);
  } catch (err) {
    throw faxErrors.error('webhook_url_refused', { field, reason: (err as Error).message });
  }
  return url.href;
}
