import { DeclarativeRuntimes } from '../../../core/kernel/declarative-runtimes.js';
import { createHttpFaxPlugin } from '../../../core/declarative/http-fax/index.js';
import { createAlertSinkPlugin, type AlertReceiverOptions } from '../../../core/declarative/alert-sink.js';

/**
 * The declarative blocks this host runs: the `http` fax block and the `alert` sink block. The
 * gateway's kernel and `switchboard plugins lint` both read it, so a block without a runtime
 * here is "not supported by this host" in both.
 */
export function hostDeclarativeRuntimes(options: AlertReceiverOptions = {}): DeclarativeRuntimes {
  return new DeclarativeRuntimes({ http: createHttpFaxPlugin, alert: (manifest) => createAlertSinkPlugin(manifest, options) });
}
