import type { ConfigRegistry } from '../config/registry.js';

// The port each gateway's server is bound to: with PORT=0 the configured value names none.
const boundPorts = new WeakMap<ConfigRegistry, number>();

/** Told by the gateway once it listens, so the default base URL names the real port. */
export function rememberBoundPort(config: ConfigRegistry, port: number): void {
  boundPorts.set(config, port);
}

/** PUBLIC_API_URL without a trailing slash: the base of document, callback and webhook URLs. */
export function publicBaseUrl(config: ConfigRegistry): string {
  const configured = config.get('PUBLIC_API_URL');
  return (configured ?? `http://localhost:${boundPorts.get(config) ?? config.get('PORT')}`).replace(/\/+$/, '');
}
