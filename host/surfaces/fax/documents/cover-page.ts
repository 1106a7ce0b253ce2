import path from 'node:path';
import { packageRoot } from '../../../platform/runtime/paths.js';
import { mergePdfs } from './pdf-merge.js';
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

/** A rendered cover page, and the characters of its text the bundled font has no glyph for (drawn as a box). */
export interface CoverPage {
  pdf: Buffer;
  undrawable: string[];
}

// DejaVu Sans Mono (Latin, Greek, Cyrillic and more; fonts/DejaVu-LICENSE.txt): monospaced like
// Courier, so the layout is the same, but not limited to WinAnsi, whose other characters print as '?'.
const COVER_FONT = path.join(packageRoot(), 'host/surfaces/fax/documents/fonts/DejaVuSansMono.ttf');
const MISSING_GLYPH = '\u25a1';

/**
 * The cover page: the filled template typeset as plain text (DejaVu Sans Mono, wrapped) on exactly
 * one page; text that would run over is cut and the last line says so. Characters the font cannot
 * draw are drawn as a box, listed in the answer and in the PDF's metadata (`UndrawableCharacters`).
 */
export async function renderCoverPage(template: string, values: CoverValues, paper: Paper): Promise<CoverPage> {
  const { width, height } = PAPER_POINTS[paper];
  const lineHeight = FONT_SIZE * 1.3;
  const columns = Math.floor((width - 2 * MARGIN) / (FONT_SIZE * 0.6));
  const rows = Math.floor((height - 2 * MARGIN) / lineHeight);
  // A form feed in a value must not start a second cover page.
  const pages = layoutPages(fillCoverTemplate(template, values).replace(/\f/g, ' '), columns, rows, (line) => line);
  const lines = pages[0] ?? [];
  if (pages.length > 1) lines[lines.length - 1] = '[cover text cut: too long for one page]';
  const undrawable = new Set<string>();
  const pdf = await renderPdf({ size: [width, height], margin: MARGIN, info: { Title: 'Fax cover page' } }, (doc) => {
    doc.addPage({ size: [width, height], margin: MARGIN });
    doc.font(COVER_FONT).fontSize(FONT_SIZE);
    const hasGlyph = glyphCheck(doc);
    const drawable = (line: string) => [...line].map((ch) => (ch.trim() === '' || hasGlyph(ch.codePointAt(0)!) ? ch : (undrawable.add(ch), MISSING_GLYPH))).join('');
    lines.forEach((line, row) => {
      if (line.length > 0) doc.text(drawable(line), MARGIN, MARGIN + row * lineHeight, { lineBreak: false });
    });
    if (undrawable.size) (doc.info as Record<string, unknown>).UndrawableCharacters = [...undrawable].join(' ');
  });
  return { pdf, undrawable: [...undrawable] };
}

/** Whether the document's current (embedded) font has a glyph for a code point: fontkit's answer, which pdfkit keeps as `_font.font`. */
function glyphCheck(doc: PDFKit.PDFDocument): (codePoint: number) => boolean {
  const font = (doc as unknown as { _font?: { font?: { hasGlyphForCodePoint?(codePoint: number): boolean } } })._font?.font;
  if (typeof font?.hasGlyphForCodePoint !== 'function') throw new Error('pdfkit no longer exposes its font: the cover page cannot tell which characters it draws');
  return (codePoint) => font.hasGlyphForCodePoint!(codePoint);
}

/** `cover` followed by every page of `document`, as one PDF. */
export function prependCover(cover: Buffer, document: Buffer): Promise<Buffer> {
  return mergePdfs([cover, document], () => 'the PDF cannot be combined with a cover page; it may be damaged (send it without a cover page)');
}
