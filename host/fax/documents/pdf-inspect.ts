import { PDFDocument, EncryptedPDFError } from 'pdf-lib';
import { InvalidDocumentError } from './errors.js';

export { InvalidDocumentError } from './errors.js';

/** Parses a PDF enough to trust it: not encrypted, a page tree with at least one page. */
export async function inspectPdf(buf: Buffer): Promise<{ pages: number }> {
  let pages: number;
  try {
    const doc = await PDFDocument.load(buf, { ignoreEncryption: false, updateMetadata: false });
    pages = doc.getPageCount();
  } catch (err) {
    if (err instanceof EncryptedPDFError) throw new InvalidDocumentError('the PDF is encrypted; send it without a password', { cause: err });
    throw new InvalidDocumentError('the PDF cannot be parsed; it may be damaged or truncated', { cause: err });
  }
  if (pages < 1) throw new InvalidDocumentError('the PDF has no pages');
  return { pages };
}
