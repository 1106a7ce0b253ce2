import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';

/**
 * The text pdfkit drew with its standard fonts, page content stream by stream: each stream is
 * inflated when compressed, and the hex strings of its TJ arrays decoded (WinAnsi, here Latin-1)
 * and joined, one text run a line.
 */
export function pdfText(pdf: Buffer): string {
  const runs: string[] = [];
  const source = pdf.toString('latin1');
  const streams = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streams.exec(source))) {
    const start = match.index + match[0].length;
    const end = source.indexOf('endstream', start);
    if (end < 0) break;
    // The dictionary's direct /Length, when it has one, cuts the data exactly (no end-of-line bytes).
    const dict = source.slice(source.lastIndexOf('<<', match.index), match.index);
    const length = /\/Length (\d+)(?!\s+\d+\s+R)/.exec(dict);
    const raw = pdf.subarray(start, length ? start + Number(length[1]) : end);
    let content: string;
    try {
      content = inflateSync(raw).toString('latin1');
    } catch {
      content = raw.toString('latin1');
    }
    for (const tj of content.matchAll(/\[((?:<[0-9a-fA-F]*>|[^\]])*)\]\s*TJ/g)) {
      const hex = [...tj[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join('');
      runs.push(Buffer.from(hex, 'hex').toString('latin1'));
    }
    streams.lastIndex = end + 'endstream'.length;
  }
  return runs.join('\n');
}

/**
 * The text of every page, one text run a line, as a reader would copy it: runs in an embedded
 * font (Identity-H, two bytes a glyph) are decoded through the font's ToUnicode map, runs in a
 * standard font as WinAnsi (here Latin-1). Reads the page's content streams through pdf-lib.
 */
export async function pdfUnicodeText(pdf: Buffer): Promise<string> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const streamText = (stream: unknown) => (stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') : '');
  const runs: string[] = [];
  for (const page of doc.getPages()) {
    const maps = new Map<string, Map<number, string> | undefined>();
    const fonts = page.node.Resources()?.lookupMaybe(PDFName.of('Font'), PDFDict);
    for (const [name, ref] of fonts?.entries() ?? []) {
      const toUnicode = doc.context.lookup(ref, PDFDict).lookup(PDFName.of('ToUnicode'));
      maps.set(name.asString().slice(1), toUnicode instanceof PDFRawStream ? unicodeMap(streamText(toUnicode)) : undefined);
    }
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((r) => doc.context.lookup(r)) : [contents];
    let font: Map<number, string> | undefined;
    for (const stream of streams) {
      for (const op of streamText(stream).matchAll(/\/([^\s/]+)\s+[\d.]+\s+Tf|\[([^\]]*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g)) {
        if (op[1] !== undefined) font = maps.get(op[1]);
        else {
          const hex = op[2] !== undefined ? [...op[2].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join('') : op[3]!;
          runs.push(font ? (hex.match(/.{4}/g) ?? []).map((code) => font!.get(parseInt(code, 16)) ?? '\ufffd').join('') : Buffer.from(hex, 'hex').toString('latin1'));
        }
      }
    }
  }
  return runs.join('\n');
}

/** A ToUnicode CMap's code-to-text entries (bfchar, and bfrange in both forms). */
function unicodeMap(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  const text = (hex: string) => String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((u) => parseInt(u, 16)));
  for (const [, body] of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, dest] of body!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) map.set(parseInt(code!, 16), text(dest!));
  }
  for (const [, body] of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, dest] of body!.matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(\[[^\]]*\]|<[0-9a-fA-F]+>)/g)) {
      const start = parseInt(lo!, 16);
      if (dest!.startsWith('[')) [...dest!.matchAll(/<([0-9a-fA-F]+)>/g)].forEach((d, i) => map.set(start + i, text(d[1]!)));
      else for (let code = start, u = parseInt(dest!.slice(1, -1), 16); code <= parseInt(hi!, 16); code++, u++) map.set(code, String.fromCharCode(u));
    }
  }
  return map;
}
