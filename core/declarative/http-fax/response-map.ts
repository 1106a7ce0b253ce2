import type { FaxProviderStatus, FaxStatus } from '../../sdk/index.js';
import type { HttpBlock, HttpResponseMap } from '../../manifest/index.js';
import { readResponsePath } from './response-path.js';

/** Where `send` finds the provider's id when the manifest does not say. */
export const DEFAULT_JOB_ID_PATH = 'id';

/** A parsed answer body: JSON, or nothing when the body was empty. */
export type ParsedAnswer = { ok: true; value: unknown } | { ok: false };

export function parseAnswer(text: string): ParsedAnswer {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Printable, short: provider text goes into job errors and logs. */
function shortText(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > 200 ? `${clean.slice(0, 200)}...` : clean;
}

/**
 * A provider status word as one of ours: the status map (exact, then ignoring case), else
 * `default_status`, else in_progress. The raw word is kept either way.
 */
export function mapStatus(block: Pick<HttpBlock, 'status_map' | 'default_status'>, raw: string): FaxStatus {
  if (Object.hasOwn(block.status_map, raw)) return block.status_map[raw]!;
  const lower = raw.toLowerCase();
  const match = Object.keys(block.status_map).find((word) => word.toLowerCase() === lower);
  if (match !== undefined) return block.status_map[match]!;
  return block.default_status ?? 'in_progress';
}

/** The provider id of a send answer, or undefined when the answer has none. */
export function jobIdOf(answer: unknown, map: HttpResponseMap | undefined): string | undefined {
  return scalarText(readResponsePath(answer, map?.job_id ?? DEFAULT_JOB_ID_PATH));
}

/** Status, pages and error of an answer. `absent` is the status when the answer names none. */
export function statusOf(
  answer: unknown,
  map: HttpResponseMap | undefined,
  block: Pick<HttpBlock, 'status_map' | 'default_status'>,
  absent: FaxStatus,
): FaxProviderStatus {
  const raw = map?.status ? scalarText(readResponsePath(answer, map.status)) : undefined;
  const out: FaxProviderStatus = raw === undefined ? { status: absent } : { status: mapStatus(block, raw), raw };
  const pages = map?.pages ? readResponsePath(answer, map.pages) : undefined;
  const pageCount = typeof pages === 'string' && /^\d+$/.test(pages) ? Number(pages) : pages;
  if (typeof pageCount === 'number' && Number.isInteger(pageCount) && pageCount >= 0) out.pages = pageCount;
  const error = map?.error ? scalarText(readResponsePath(answer, map.error)) : undefined;
  if (error !== undefined) out.error = shortText(error);
  return out;
}

/** The provider's own words on a failed call: the error path of the answer, else its text. */
export function providerMessage(text: string, map: HttpResponseMap | undefined): string | undefined {
  const parsed = parseAnswer(text);
  if (parsed.ok && map?.error) {
    const said = scalarText(readResponsePath(parsed.value, map.error));
    if (said !== undefined) return shortText(said);
  }
  const clean = shortText(text);
  return clean === '' ? undefined : clean;
}
