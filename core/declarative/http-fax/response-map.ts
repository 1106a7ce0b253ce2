import type { FaxProviderStatus, FaxStatus } from '../../sdk/index.js';
import { providerStatus } from '../../sdk/fax/index.js';
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

export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Printable, short: provider text goes into job errors and logs. */
export function shortText(text: string): string {
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

/** Where status, pages and error are: an action's `response` map, or a callback's fields. */
type StatusPlaces = Pick<HttpResponseMap, 'status' | 'pages' | 'error'>;

/**
 * Status, pages and error read with `read` (a response path of an answer, a callback field).
 * `absent` is the status when nothing names one.
 */
export function statusFrom(
  read: (where: string) => unknown,
  places: StatusPlaces | undefined,
  block: Pick<HttpBlock, 'status_map' | 'default_status'>,
  absent: FaxStatus,
): FaxProviderStatus {
  const raw = places?.status ? scalarText(read(places.status)) : undefined;
  const error = places?.error ? scalarText(read(places.error)) : undefined;
  return providerStatus(raw === undefined ? absent : mapStatus(block, raw), {
    pages: places?.pages ? read(places.pages) : undefined,
    error: error === undefined ? undefined : shortText(error),
    raw,
  });
}

/** Status, pages and error of an answer. `absent` is the status when the answer names none. */
export function statusOf(answer: unknown, map: HttpResponseMap | undefined, block: Pick<HttpBlock, 'status_map' | 'default_status'>, absent: FaxStatus): FaxProviderStatus {
  return statusFrom((path) => readResponsePath(answer, path), map, block, absent);
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
