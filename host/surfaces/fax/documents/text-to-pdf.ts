import { renderPdf } from './pdfkit-buffer.js';
import { PAPER_POINTS, type Paper } from './paper.js';

export interface TextToPdfOptions {
  paper: Paper;
  /** Courier size in points (default 10). */
  fontSize?: number;
  /** Margin on every side, in points (default 54, three quarters of an inch). */
  margin?: number;
}

const COURIER_ADVANCE = 0.6; // Courier glyphs are 600/1000 em wide
const TAB_WIDTH = 8;

/**
 * Typesets plain text as a PDF in Courier: lines longer than the page are wrapped (at a space
 * when there is one), pages break when full and at form feeds.
 */
export async function textToPdf(text: string, options: TextToPdfOptions): Promise<{ pdf: Buffer; pages: number }> {
  const fontSize = options.fontSize ?? 10;
  const margin = options.margin ?? 54;
  const { width, height } = PAPER_POINTS[options.paper];
  const lineHeight = fontSize * 1.2;
  const columns = Math.max(1, Math.floor((width - 2 * margin) / (fontSize * COURIER_ADVANCE)));
  const rows = Math.max(1, Math.floor((height - 2 * margin) / lineHeight));
  const pages = layoutPages(text, columns, rows);
  const pdf = await renderPdf({ size: [width, height], margin }, (doc) => {
    doc.font('Courier').fontSize(fontSize);
    for (const lines of pages) {
      doc.addPage({ size: [width, height], margin });
      lines.forEach((line, row) => {
        if (line.length > 0) doc.text(line, margin, margin + row * lineHeight, { lineBreak: false });
      });
    }
  });
  return { pdf, pages: pages.length };
}

/**
 * Splits text into pages of at most `rows` lines of at most `columns` characters. `printable`
 * makes a line drawable in the font (the standard Courier: WinAnsi; an embedded font keeps it).
 */
export function layoutPages(text: string, columns: number, rows: number, printable: (line: string) => string = toWinAnsi): string[][] {
  const pages: string[][] = [];
  const sections = text.replace(/\r\n?/g, '\n').split('\f');
  for (const section of sections) {
    let page: string[] = [];
    const lines = section.split('\n');
    // A trailing newline ends the last line; it does not start an empty one.
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    for (const raw of lines) {
      for (const line of wrapLine(printable(expandTabs(raw)), columns)) {
        if (page.length === rows) {
          pages.push(page);
          page = [];
        }
        page.push(line);
      }
    }
    pages.push(page);
  }
  return pages;
}

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) out += ch === '\t' ? ' '.repeat(TAB_WIDTH - (out.length % TAB_WIDTH)) : ch;
  return out;
}

function wrapLine(line: string, columns: number): string[] {
  const out: string[] = [];
  let rest = line.trimEnd();
  while (rest.length > columns) {
    const space = rest.lastIndexOf(' ', columns);
    const cut = space > columns / 2 ? space : columns;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^ /, '');
  }
  out.push(rest);
  return out;
}

/** Characters beyond Latin-1 that the standard PDF fonts still carry (WinAnsiEncoding). */
const WIN_ANSI_EXTRAS = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** The standard Courier font has no glyphs outside WinAnsi; those characters print as '?'. */
function toWinAnsi(line: string): string {
  let out = '';
  for (const ch of line) {
    const code = ch.codePointAt(0)!;
    const printable = (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRAS.has(ch);
    out += printable ? ch : '?';
  }
  return out;
}
