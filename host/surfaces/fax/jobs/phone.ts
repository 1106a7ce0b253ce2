export const PHONE_RULE = 'a phone number is an optional "+" and 6 to 20 digits (spaces, dashes, dots and brackets are ignored)';

/** Normalizes a destination: separators removed, `+` kept; null when it breaks the rule. */
export function normalizePhone(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const compact = input.trim().replace(/[\s\-.()[\]]/g, '');
  return /^\+?\d{6,20}$/.test(compact) ? compact : null;
}
