// The number rule of the API (host/surfaces/fax/jobs/phone.ts): separators ignored, then an
// optional "+" and 6 to 20 digits.
export function normalizePhone(input: string): string | null {
  const compact = input.trim().replace(/[\s\-.()[\]]/g, '');
  return /^\+?\d{6,20}$/.test(compact) ? compact : null;
}

export const PHONE_RULE = 'An optional "+" and 6 to 20 digits; spaces, dashes, dots and brackets are ignored.';

/** Several numbers typed in one field: separated by commas, semicolons or line breaks. */
export function splitNumbers(input: string): string[] {
  return input
    .split(/[,;\n]/)
    .map((n) => n.trim())
    .filter(Boolean);
}
