import { inflateSync } from 'node:zlib';

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
