/**
 * One catalogue of the HTTP API's error codes. Every error body is `{"detail": ..., "code": ...}`.
 */
export const ErrorCodes = {
  validation: 'validation_error',
  notFound: 'not_found',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  /** An API key is valid but lacks the scope the route needs. */
  insufficientScope: 'insufficient_scope',
  conflict: 'conflict',
  /** The first key minted without API_KEY must hold `admin`: any other would lock the operator out. */
  wouldLockOut: 'would_lock_out',
  payloadTooLarge: 'payload_too_large',
  headersTooLarge: 'headers_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  rateLimited: 'rate_limited',
  unavailable: 'service_unavailable',
  badGateway: 'bad_gateway',
  internal: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string = defaultCode(status),
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

function defaultCode(status: number): string {
  switch (status) {
    case 400:
    case 422:
      return ErrorCodes.validation;
    case 401:
      return ErrorCodes.unauthorized;
    case 403:
      return ErrorCodes.forbidden;
    case 404:
      return ErrorCodes.notFound;
    case 409:
      return ErrorCodes.conflict;
    case 413:
      return ErrorCodes.payloadTooLarge;
    case 415:
      return ErrorCodes.unsupportedMediaType;
    case 429:
      return ErrorCodes.rateLimited;
    case 502:
      return ErrorCodes.badGateway;
    case 503:
      return ErrorCodes.unavailable;
    default:
      return ErrorCodes.internal;
  }
}

export const notFound = (what: string) => new HttpError(404, `${what} not found`);
