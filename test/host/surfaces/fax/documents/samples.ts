import PDFDocument from 'pdfkit';
import sharp, { type Sharp } from 'sharp';

/** A real PDF made by pdfkit: `pages` pages, each naming its number, with some lines drawn. */
export function samplePdf(pages: number, size: 'LETTER' | 'A4' = 'LETTER'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size, autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (let i = 1; i <= pages; i++) {
      doc.addPage();
      doc.fontSize(28).text(`Sample fax page ${i} of ${pages}`, 72, 100);
      doc.moveTo(72, 160).lineTo(540, 160).lineWidth(4).stroke();
      doc.fontSize(11).text('The quick brown fox jumps over the lazy dog. '.repeat(20), 72, 200, { width: 468 });
    }
    doc.end();
  });
}

/** A solid-colour image with a black bar, so every page has content. */
export function sampleImage(width: number, height: number, colour: string): Sharp {
  const bar = Buffer.from(
    `<svg width="${width}" height="${height}"><rect x="${width / 10}" y="${height / 3}" width="${(width * 8) / 10}" height="${height / 10}" fill="#000"/></svg>`,
  );
  return sharp({ create: { width, height, channels: 3, background: colour } }).composite([{ input: bar }]);
}

export const samplePng = () => sampleImage(400, 300, '#e0e0ff').png().toBuffer();
export const sampleJpeg = () => sampleImage(300, 400, '#ffe0e0').jpeg().toBuffer();

/** A multi-page TIFF: sharp joins the page images as the pages of one TIFF. */
export async function sampleTiff(pages: number): Promise<Buffer> {
  const images = await Promise.all(Array.from({ length: pages }, (_, i) => sampleImage(300, 420, ['#fff', '#eee', '#ddd'][i % 3]!).png().toBuffer()));
  const joined = images.length > 1 ? sharp(images, { join: { animated: true } }) : sharp(images[0]);
  return joined.tiff({ compression: 'lzw' }).toBuffer();
}
