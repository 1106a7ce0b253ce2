import type { FaxLineFailure, FaxProviderStatus, FaxStatus } from '../contracts/fax.js';

/**
 * A provider's status words as job statuses, compared without case or surrounding space; a word
 * not in the table maps to `fallback` (by default queued: unknown words never end a job).
 */
export function statusWords(table: Readonly<Record<string, FaxStatus>>, fallback: FaxStatus = 'queued'): (raw: string | undefined) => FaxStatus {
  const byWord = new Map(Object.entries(table).map(([word, status]) => [word.toLowerCase(), status]));
  return (raw) => byWord.get((raw ?? '').trim().toLowerCase()) ?? fallback;
}

/**
 * What a provider says of a fax, with only the facts it gave: pages when a whole number of zero
 * or more (numeric text counts), error and raw word when not empty.
 */
export function providerStatus(
  status: FaxStatus,
  facts: { providerSid?: string | undefined; pages?: unknown; error?: string | null | undefined; raw?: string | null | undefined; lineFailure?: FaxLineFailure | undefined },
): FaxProviderStatus {
  const pages = typeof facts.pages === 'string' && /^\s*\d+\s*$/.test(facts.pages) ? Number(facts.pages) : facts.pages;
  return {
    ...(facts.providerSid ? { providerSid: facts.providerSid } : {}),
    status,
    ...(typeof pages === 'number' && Number.isInteger(pages) && pages >= 0 ? { pages } : {}),
    ...(facts.error ? { error: facts.error } : {}),
    ...(facts.raw ? { raw: facts.raw } : {}),
    // only a failed fax has a line failure to redial for
    ...(facts.lineFailure && status === 'FAILED' ? { lineFailure: facts.lineFailure } : {}),
  };
}
