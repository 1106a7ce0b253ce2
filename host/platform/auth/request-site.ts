import type { Request } from 'express';
import type { ConfigRegistry } from '../config/registry.js';
import type { GuardedRoute, SiteGuard } from '../http/api.js';
import { httpError } from '../http/error-catalogue.js';

const STATE_CHANGING = new Set(['post', 'put', 'patch', 'delete']);
const LOOPBACK_V4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** `name` and optional `port` of a Host header value or an ALLOWED_HOSTS entry (`[::1]:8080`, `example.com`). */
export function splitHost(value: string): { name: string; port?: string } | undefined {
  const text = value.trim().toLowerCase();
  const match = text.startsWith('[') ? /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(text) : /^([^:\s/@]+?)\.?(?::(\d{1,5}))?$/.exec(text);
  if (!match) return undefined;
  return match[2] ? { name: match[1]!, port: match[2] } : { name: match[1]! };
}

function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name === '[::1]') return true;
  const v4 = LOOPBACK_V4.exec(name);
  return !!v4 && v4.slice(1).every((octet) => Number(octet) <= 255);
}

/**
 * Host names this gateway answers for: a browser tricked by DNS rebinding sends the attacker's
 * name in Host, so any other name is refused. Read per request: PUBLIC_API_URL may change.
 */
export function hostAllowed(config: ConfigRegistry, hostHeader: string): boolean {
  const host = splitHost(hostHeader);
  if (!host) return false;
  if (isLoopbackName(host.name)) return true;
  const publicUrl = config.get('PUBLIC_API_URL');
  if (publicUrl && new URL(publicUrl).hostname.toLowerCase() === host.name) return true;
  for (const entry of (config.get('ALLOWED_HOSTS') ?? '').split(',')) {
    const allowed = entry.trim() ? splitHost(entry) : undefined;
    if (allowed && allowed.name === host.name && (allowed.port === undefined || allowed.port === host.port)) return true;
  }
  return false;
}

/** The `host[:port]` of an Origin header, or undefined for `null` and anything unparsable. */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Runs before any route's body is read. Non-public routes answer only for allowed Host names;
 * state-changing routes, and admin and loopback-only routes for every method, refuse a browser
 * request made from another site (its Origin, or Sec-Fetch-Site). Server-to-server callers
 * (provider webhooks, curl) send neither header and pass.
 */
export function createSiteGuard(config: ConfigRegistry): SiteGuard {
  return (route: GuardedRoute, req: Request) => {
    const host = single(req.headers.host);
    if (route.access !== 'public' && host !== undefined && !hostAllowed(config, host)) throw httpError('host_not_allowed', { host: host.slice(0, 100) });
    const guarded = STATE_CHANGING.has(route.method) || route.access === 'loopback' || (typeof route.access === 'object' && !!route.access.administrative);
    if (!guarded) return;
    if (single(req.headers['sec-fetch-site']) === 'cross-site') throw httpError('cross_site_request', { reason: 'Sec-Fetch-Site: cross-site' });
    const origin = single(req.headers.origin);
    if (origin === undefined) return;
    const from = originHost(origin);
    if (!from || !hostAllowed(config, from)) throw httpError('cross_site_request', { reason: `Origin ${origin.slice(0, 100)} is not a host of this gateway` });
  };
}
