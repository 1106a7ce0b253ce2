/** A document we recognise but cannot use (corrupt, encrypted, empty, absurdly large): HTTP 400. */
export class InvalidDocumentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidDocumentError';
  }
}

/** A document of a type we do not accept (not PDF, text, PNG, JPEG or TIFF): HTTP 415. */
export class UnsupportedDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedDocumentError';
  }
}
