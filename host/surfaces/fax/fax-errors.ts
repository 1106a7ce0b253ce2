import { httpError } from '../../platform/http/error-catalogue.js';
import type { HttpError } from '../../platform/http/errors.js';
import { InvalidDocumentError, UnsupportedDocumentError } from './documents/errors.js';

/** The fax surface's domain errors as HTTP answers. */
export function faxErrorToHttp(err: unknown): HttpError | undefined {
  if (err instanceof InvalidDocumentError) return httpError('invalid_document', { reason: err.message });
  if (err instanceof UnsupportedDocumentError) return httpError('unsupported_document', { reason: err.message });
  return undefined;
}
