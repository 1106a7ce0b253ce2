import { detectDocumentType, type DocumentType } from './detect.js';
import { InvalidDocumentError, UnsupportedDocumentError } from './errors.js';
import { imageToPdf } from './image-to-pdf.js';
import type { Paper } from './paper.js';
import { inspectPdf } from './pdf-inspect.js';
import { textToPdf } from './text-to-pdf.js';

export interface NormalizedDocument {
  pdf: Buffer;
  pages: number;
  sourceType: DocumentType;
}

/**
 * Turns an upload into the job's PDF: PDFs are checked and kept as they are; text and images
 * are converted. Throws UnsupportedDocumentError (415) or InvalidDocumentError (400).
 */
export async function normalizeToPdf(bytes: Buffer, options: { paper: Paper }): Promise<NormalizedDocument> {
  const sourceType = detectDocumentType(bytes);
  switch (sourceType) {
    case 'pdf':
      return { pdf: bytes, pages: (await inspectPdf(bytes)).pages, sourceType };
    case 'text':
      return { ...(await textToPdf(decodeText(bytes), { paper: options.paper })), sourceType };
    case 'png':
    case 'jpeg':
    case 'tiff':
      return { ...(await imageToPdf(bytes, { paper: options.paper })), sourceType };
    case null:
      throw new UnsupportedDocumentError('unsupported file type: send a PDF, a plain-text (UTF-8) file, or a PNG, JPEG or TIFF image');
  }
}

/** The whole file must be UTF-8; detection only sampled its head. */
function decodeText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (err) {
    throw new InvalidDocumentError('the text file is not valid UTF-8', { cause: err });
  }
}
