import { InvalidDocumentError } from './errors.js';
import { PAPER_POINTS, type Paper } from './paper.js';
import { renderPdf } from './pdfkit-buffer.js';
import { layoutPages } from './text-to-pdf.js';

/** What a sender may put on a cover page; each is plain text. */
export interface CoverFields {
  to?: string | undefined;
  from?: string | undefined;
  subject?: string | undefined;
  message?: string | undefined;
}

/** The values a template's placeholders take. */
export interface CoverValues extends CoverFields {
  /** Total pages sent, the cover included. */
  pages: number;
  date: Date;
}

const FONT_SIZE = 11;
const MARGIN = 72;
const PLACEHOLDER = /\{(to|from|subject|message|date|pages)\}|\\n/g;

/**
 * Fills FAX_COVER_TEMPLATE in one pass: a value is never read again as template, so a message
 * holding "{to}" or a backslash-n stays as typed. Missing values are empty.
 */
export function fillCoverTemplate(template: string, values: CoverValues): string {
  return template.replace(PLACEHOLDER, (match, name: string | undefined) => {
    if (!name) return '\n';
    if (name === 'pages') return String(values.pages);
    if (name === 'date') return values.date.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
    return values[name as keyof CoverFields] ?? '';
  });
}

/**
 * The cover page: the filled template typeset as plain text (Courier, wrapped) on exactly one
 * page; text that would run over is cut and the last line says so.
 */
export async function renderCoverPage(template: string, values: CoverValues, paper: Paper): Promise<Buffer> {
  const { width, height } = PAPER_POINTS[paper];
  const lineHeight = FONT_SIZE * 1.3;
  const columns = Math.floor((width - 2 * MARGIN) / (FONT_SIZE * 0.6));
  const rows = Math.floor((height - 2 * MARGIN) / lineHeight);
  // A form feed in a value must not start a second cover page.
  const pages = layoutPages(fillCoverTemplate(template, values).replace(/\f/g, ' '), columns, rows);
  const lines = pages[0] ?? [];
  if (pages.length > 1) lines[lines.length - 1] = '[cover text cut: too long for one page]';
  return renderPdf({ size: [width, height], margin: MARGIN, info: { Title: 'Fax cover page' } }, (doc) => {
    doc.addPage({ size: [width, height], margin: MARGIN });
    doc.font('Courier').fontSize(FONT_SIZE);
    lines.forEach((line, row) => {
      if (line.length > 0) doc.text(line, MARGIN, MARGIN + row * lineHeight, { lineBreak: false });
    });
  });
}

/** `cover` followed by every page of `document`, as one PDF. */
export async function prependCover(cover: Buffer, document: Buffer): Promise<Buffer> {
  const { PDFDocument } = await import('pdf-lib');
  let body: Awaited<ReturnType<typeof PDFDocument.load>>;
  try {
    body = await PDFDocument.load(document, { updateMetadata: false });
  } catch (err) {
    throw new InvalidDocumentError('the PDF cannot be combined with a cover page; it may be damaged (send it without a cover page)', { cause: err });
  }
  const merged = await PDFDocument.load(cover, { updateMetadata: false });
  const pages = await merged.copyPages(body, body.getPageIndices());
  for (const page of pages) merged.addPage(page);
  return Buffer.from(await merged.save());
}
