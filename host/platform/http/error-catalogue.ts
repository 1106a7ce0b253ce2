import { DomainError } from '../errors/domain-error.js';
import type { CodeOf, ParamsOf } from '../errors/error-vocabulary.js';
import { platformErrors } from '../errors/platform-errors.js';
import type { ErrorStatus, HttpErrorMapping } from './error-mapping.js';
import { HttpError } from './errors.js';
import { PLATFORM_HTTP_ERRORS } from './platform-http-errors.js';

export type { FieldIssue } from '../errors/platform-errors.js';

/** One code of the catalogue as docs/platform/errors.md lists it. */
export interface CatalogueRow {
  code: string;
  owner: string;
  /** The status answered first, then the others a caller may meet. */
  statuses: readonly number[];
  meaning: string;
}

/**
 * Every error the HTTP API answers: the platform's codes and those each surface declares, merged
 * into one catalogue (a code declared twice is refused). Domain errors become HTTP answers here
 * and nowhere else; docs/platform/errors.md is generated from it (host/cli/error-docs.ts).
 */
export class ErrorCatalogue {
  private readonly rowsByCode = new Map<string, CatalogueRow>();
  // any: each mapping types its own codes; here they are only looked up by name
  private readonly mappings: Array<HttpErrorMapping<any>> = [];

  constructor(mappings: ReadonlyArray<HttpErrorMapping<any>> = [PLATFORM_HTTP_ERRORS]) {
    for (const mapping of mappings) this.add(mapping);
  }

  add(mapping: HttpErrorMapping<any>): void {
    const { owner, definitions } = mapping.vocabulary;
    for (const [code, definition] of Object.entries(definitions as Record<string, { meaning: string }>)) {
      const taken = this.rowsByCode.get(code);
      if (taken) throw new Error(`error code "${code}" of ${owner} is declared by ${taken.owner} already`);
      const status = mapping.statuses[code] as ErrorStatus;
      const statuses = typeof status === 'number' ? [status] : [status.status, ...status.statuses.filter((s) => s !== status.status)];
      this.rowsByCode.set(code, { code, owner, statuses, meaning: definition.meaning });
    }
    this.mappings.push(mapping);
  }

  rows(): CatalogueRow[] {
    return [...this.rowsByCode.values()];
  }

  has(code: string): boolean {
    return this.rowsByCode.has(code);
  }

  row(code: string): CatalogueRow | undefined {
    return this.rowsByCode.get(code);
  }

  /** The HTTP answer of a thrown error that is not an HttpError yet; undefined when no vocabulary knows it (a fault: 500). */
  toHttp(err: unknown): HttpError | undefined {
    let error: unknown = err;
    if (!(error instanceof DomainError) && !(error instanceof HttpError)) {
      for (const mapping of this.mappings) {
        const translated = mapping.translate?.(err);
        if (translated) {
          error = translated;
          break;
        }
      }
    }
    if (error instanceof HttpError) return error;
    if (!(error instanceof DomainError)) return undefined;
    const row = this.rowsByCode.get(error.code);
    if (!row) return undefined;
    // a hint outside the code's documented statuses would make the docs lie: answer the first one
    const status = error.statusHint !== undefined && row.statuses.includes(error.statusHint) ? error.statusHint : row.statuses[0]!;
    const answer = new HttpError(status, error.message, error.code).withBody(error.details);
    return error.retryAfterSeconds === undefined ? answer : answer.withHeaders({ 'Retry-After': String(error.retryAfterSeconds) });
  }
}

const platformCatalogue = new ErrorCatalogue();

type PlatformCode = CodeOf<typeof platformErrors>;
type PlatformParams<C extends PlatformCode> = ParamsOf<(typeof platformErrors)['definitions'], C>;

/** The platform's code `code` with its message, as the HTTP answer; throw it (the route DSL, guards, platform routes). */
export function httpError<C extends PlatformCode>(code: C, ...params: PlatformParams<C>): HttpError {
  return platformCatalogue.toHttp(platformErrors.error(code, ...params))!;
}

/** Like httpError, at one of the other statuses the code documents (validation 400). */
export function httpErrorWithStatus<C extends PlatformCode>(code: C, status: number, ...params: PlatformParams<C>): HttpError {
  return platformCatalogue.toHttp(platformErrors.errorWithHint(code, status, ...params))!;
}

/** A validation_error naming one field; 422 unless the route answers validation with 400. */
export function invalid(field: string, problem: string, status: 400 | 422 = 422): HttpError {
  return httpErrorWithStatus('validation_error', status, { issues: [{ field, problem }] });
}
