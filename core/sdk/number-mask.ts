/**
 * A number as people write it: an optional "+", digits, and an area code in brackets, with
 * one space, dash or dot between groups. A bracketed group longer than an area code ("(15003)",
 * an error code after the number) is not part of it.
 */
const NUMBER_RUN = /\+?(?:\(\d{1,4}\)|\d)(?:[ .-]?(?:\(\d{1,4}\)|\d))*/g;
/** 6 digits is the shortest destination the gateway accepts, so every number it dials is caught. */
const MIN_DIGITS = 6;
// Runs that are not phone numbers and read badly masked: ISO dates and IPv4 addresses.
const NOT_A_NUMBER = [/^\d{4}-\d{2}-\d{2}(?:$|\s)/, /^\d{1,3}(?:\.\d{1,3}){3}$/];
/**
 * Ids the API returns (UUIDs, hex digests) hold digit runs too; they are matched first and kept
 * whole, so an id read in a response can be found in the log.
 */
const HEX_ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/i;
const ID_OR_NUMBER = new RegExp(`(${HEX_ID.source})|${NUMBER_RUN.source}`, 'gi');

/**
 * Masks every phone-number-length digit run in a free text to `***` and its last four digits,
 * the form admin views show numbers in. Providers echo destinations in their error texts; this
 * runs before such a text is stored, logged or audited. Idempotent: a masked text is unchanged.
 */
export function maskNumbers(text: string): string {
  return text.replace(ID_OR_NUMBER, (run, id: string | undefined) => {
    if (id !== undefined) return run;
    const digits = run.replace(/\D/g, '');
    if (digits.length < MIN_DIGITS || NOT_A_NUMBER.some((re) => re.test(run))) return run;
    return `***${digits.slice(-4)}`;
  });
}
