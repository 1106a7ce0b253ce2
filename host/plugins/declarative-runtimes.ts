import { DeclarativeRuntimes } from '../../core/kernel/declarative-runtimes.js';
import { createHttpFaxPlugin } from './http-fax/index.js';

/**
 * The declarative blocks this host runs. The gateway's kernel and `switchboard plugins lint`
 * both read it, so a block is "not supported by this host" in both until its runtime is
 * registered here (the `alert` block has none yet).
 */
export function hostDeclarativeRuntimes(): DeclarativeRuntimes {
  return new DeclarativeRuntimes({ http: createHttpFaxPlugin });
}
