import { DomainError } from '../../../platform/errors/domain-error.js';

/** A document we recognise but cannot use (corrupt, encrypted, empty, absurdly large). */
export class InvalidDocumentError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_document', message, undefined, options);
    this.name = 'InvalidDocumentError';
  }
}

/** A document of a type we do not accept (not PDF, text, PNG, JPEG or TIFF). */
export class UnsupportedDocumentError extends DomainError {
  constructor(message: string) {
    super('unsupported_document', message);
    this.name = 'UnsupportedDocumentError';
  }
}
