import { loadPdfKit } from './lazy-modules.js';

/** Runs `draw` on a new pdfkit document and resolves with the finished PDF bytes. */
export async function renderPdf(options: PDFKit.PDFDocumentOptions, draw: (doc: PDFKit.PDFDocument) => void | Promise<void>): Promise<Buffer> {
  const PDFDocument = await loadPdfKit();
  return new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, ...options, info: { Producer: 'Switchboard', Creator: 'Switchboard', ...options.info } });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    Promise.resolve()
      .then(() => draw(doc))
      .then(() => doc.end(), reject);
  });
}
