import { SECRET_MASK } from '../sdk/settings.js';

// scheme://userinfo@ : the userinfo (a user, a password, a token) is what a URL setting leaks.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/?#\s@]+)@/gi;

/** Text with the userinfo of every URL in it replaced by the mask (`http://***@host/`). */
export function maskUrlCredentials(text: string): string {
  return text.replace(USERINFO, `$1${SECRET_MASK}@`);
}

/**
 * The value to store for a shown value sent back: when `sent` is `current` with its URL
 * credentials masked, the caller echoed what it was shown, and `current` stays.
 */
export function unmaskEcho(sent: unknown, current: unknown): unknown {
  if (typeof sent !== 'string' || typeof current !== 'string' || sent === current) return sent;
  return maskUrlCredentials(current) === sent ? current : sent;
}
