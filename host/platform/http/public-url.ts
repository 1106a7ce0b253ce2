import type { ConfigRegistry } from '../config/registry.js';

/** PUBLIC_API_URL without a trailing slash: the base of document, callback and webhook URLs. */
export function publicBaseUrl(config: ConfigRegistry): string {
  const configured = config.get('PUBLIC_API_URL');
  return (configured ?? `http://localhost:${config.get('PORT')}`).replace(/\/+$/, '');
}
