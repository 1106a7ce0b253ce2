/** Document handling of fax jobs: detection, conversion to PDF, fax TIFF rendering. */
export { detectDocumentType, DETECT_SAMPLE_BYTES, type DocumentType } from './detect.js';
export { InvalidDocumentError, UnsupportedDocumentError } from './errors.js';
export { textToPdf, type TextToPdfOptions } from './text-to-pdf.js';
export { imageToPdf, type ImageToPdfOptions } from './image-to-pdf.js';
export { inspectPdf } from './pdf-inspect.js';
export { pdfToFaxTiff, ghostscriptVersion, GhostscriptError, type FaxTiffOptions } from './ghostscript.js';
export { normalizeToPdf, type NormalizedDocument } from './normalize.js';
export { createFaxDocument, FAX_TIFF_NAME, type JobDocumentOptions } from './job-document.js';
export { PAPERS, PAPER_POINTS, type Paper } from './paper.js';
export { renderCoverPage, prependCover, fillCoverTemplate, type CoverFields, type CoverPage, type CoverValues } from './cover-page.js';
export { DocumentPool, type DocumentBudget } from './document-pool.js';
