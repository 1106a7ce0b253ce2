import type { DomainError } from '../errors/domain-error.js';
import type { ErrorDefinitions, ErrorVocabulary } from '../errors/error-vocabulary.js';
import type { HttpError } from './errors.js';

/** A code's HTTP answer: its status, or its status and the others a caller may meet (the first is `status`). */
export type ErrorStatus = number | { status: number; statuses: readonly number[] };

/**
 * How one owner's error vocabulary is answered over HTTP: a status for every code (the compiler
 * checks that none is missing), and the errors of other origins (the kernel, the SDK, a
 * library) that mean one of its codes.
 */
export interface HttpErrorMapping<D extends ErrorDefinitions = ErrorDefinitions> {
  vocabulary: ErrorVocabulary<D>;
  statuses: { readonly [C in keyof D]: ErrorStatus };
  translate?: (err: unknown) => DomainError | HttpError | undefined;
}

export function httpErrorMapping<D extends ErrorDefinitions>(
  vocabulary: ErrorVocabulary<D>,
  statuses: { readonly [C in keyof D]: ErrorStatus },
  translate?: HttpErrorMapping<D>['translate'],
): HttpErrorMapping<D> {
  return { vocabulary, statuses, ...(translate ? { translate } : {}) };
}
