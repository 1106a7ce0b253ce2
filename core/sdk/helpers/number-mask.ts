/**
 * A run of 6 or more digits, as people write phone numbers: an optional "+", and at most two
 * separators (space, dash, dot, brackets) between digits. 6 is the shortest destination the
 * gateway accepts, so every number it can dial is caught.
 */
const NUMBER_RUN = /\+?\d(?:[\s().-]{0,2}\d){5,}/g;
// Runs that are not phone numbers and read badly masked: ISO dates and IPv4 addresses.
const NOT_A_NUMBER = [/^\d{4}-\d{2}-\d{2}$/, /^\d{1,3}(?:\.\d{1,3}){3}$/];

/**
 * Masks every phone-number-length digit run in a free text to `***` and its last four digits,
 * the form admin views show numbers in. Providers echo destinations in their error texts; this
 * runs before such a text is stored, logged or audited. Idempotent: a masked text is unchanged.
 */
export function maskNumbers(text: string): string {
  return text.replace(NUMBER_RUN, (run) => (NOT_A_NUMBER.some((re) => re.test(run)) ? run : `***${run.replace(/\D/g, '').slice(-4)}`));
}
