import { DomainError } from './domain-error.js';

/** One error code of a vocabulary: when it happens (for docs/platform/errors.md) and its message. */
export interface ErrorDefinition<P> {
  meaning: string;
  message: (params: P) => string;
}

/** Declares one code; `P` is what its message is made of (`void` for none). */
export const defineError = <P = void>(meaning: string, message: (params: P) => string): ErrorDefinition<P> => ({ meaning, message });

// `any`: the parameter types differ per code and are recovered by ParamsOf.
export type ErrorDefinitions = Record<string, ErrorDefinition<any>>;

type IsAny<T> = 0 extends 1 & T ? true : false;
/**
 * What `error(code, ...)` takes after the code: nothing for a message made of nothing (its
 * parameter is inferred as `any` inside a vocabulary), an optional value where `void` is allowed.
 */
export type ParamsOf<D extends ErrorDefinitions, C extends keyof D> = D[C]['message'] extends (params: infer P) => string
  ? IsAny<P> extends true
    ? []
    : void extends P
      ? [params?: P]
      : [params: P]
  : never;

/**
 * The error codes one owner (the platform, a surface) declares: one condition, one code and one
 * wording everywhere. `error(code, params)` makes the DomainError to throw.
 */
export class ErrorVocabulary<D extends ErrorDefinitions = ErrorDefinitions> {
  constructor(
    /** Who declares these codes (`platform`, `fax`, ...): named in the generated docs. */
    readonly owner: string,
    readonly definitions: D,
  ) {}

  error<C extends keyof D & string>(code: C, ...params: ParamsOf<D, C>): DomainError {
    return new DomainError(code, this.definitions[code]!.message(params[0] as never));
  }

  /** Like error(), for a code documented with several answers: `hint` says which (DomainError.statusHint). */
  errorWithHint<C extends keyof D & string>(code: C, hint: number, ...params: ParamsOf<D, C>): DomainError {
    return new DomainError(code, this.definitions[code]!.message(params[0] as never), hint);
  }

  codes(): Array<keyof D & string> {
    return Object.keys(this.definitions) as Array<keyof D & string>;
  }
}

export function errorVocabulary<D extends ErrorDefinitions>(owner: string, definitions: D): ErrorVocabulary<D> {
  return new ErrorVocabulary(owner, definitions);
}

export type CodeOf<V> = V extends ErrorVocabulary<infer D> ? keyof D & string : never;
