import { InvalidDocumentError } from './errors.js';
import { loadPdfLib } from './lazy-modules.js';
import { readPdfStructure } from './pdf-structure.js';

export { InvalidDocumentError } from './errors.js';

/**
 * Checks a PDF enough to trust it: not encrypted, a page tree with at least one page. The
 * bounded structural check answers for well-formed files; anything it cannot read cheaply (a
 * damaged cross-reference, an unusual encoding) gets pdf-lib's full parse, loaded on first use.
 */
export async function inspectPdf(buf: Buffer): Promise<{ pages: number }> {
  const quick = readPdfStructure(buf);
  if (quick) return quick;
  const { PDFDocument, EncryptedPDFError } = await loadPdfLib();
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
