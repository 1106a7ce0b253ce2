/**
 * Stands for the gateway's tokenized `/fax/{id}/pdf?token=` endpoint in provider tests: a
 * loopback server that serves each job's PDF, plus the FaxDocument a provider is handed.
 */
import { createServer } from 'node:http';
import PDFDocument from 'pdfkit';
import type { FaxDocument } from 'switchboard/sdk';
import { closeServer, listen } from './hosted-fax-fake-kit.js';

/** A real PDF of `pages` pages, one line of text each, made with pdfkit. */
export function makePdf(pages: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'LETTER', autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (let i = 1; i <= pages; i++) doc.addPage().font('Courier').fontSize(12).text(`Test fax page ${i} of ${pages}`);
    doc.end();
  });
}

export interface FaxDocumentServer {
  url: string;
  /** Requests for PDFs, by path (token included). */
  requests: string[];
  /** Serves `bytes` as the PDF of `jobId` and returns the document handed to providers. */
  document(jobId: string, bytes: Buffer, pages: number): FaxDocument;
  close(): Promise<void>;
}

export async function startFaxDocumentServer(): Promise<FaxDocumentServer> {
  const pdfs = new Map<string, { bytes: Buffer; token: string }>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://documents');
    const jobId = decodeURIComponent(url.pathname.match(/^\/fax\/([^/]+)\/pdf$/)?.[1] ?? '');
    const entry = pdfs.get(jobId);
    if (!entry) return void res.writeHead(404).end();
    if (url.searchParams.get('token') !== entry.token) return void res.writeHead(403).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': entry.bytes.length }).end(entry.bytes);
  });
  const origin = await listen(server);
  return {
    url: origin,
    requests,
    document(jobId, bytes, pages) {
      const token = `tok-${jobId}`;
      pdfs.set(jobId, { bytes, token });
      return {
        url: `${origin}/fax/${encodeURIComponent(jobId)}/pdf?token=${token}`,
        pages,
        read: async () => bytes,
        saveArtifact: async () => {
          throw new Error('hosted providers store no artifacts');
        },
        renderTiff: async () => {
          throw new Error('hosted providers render no TIFF');
        },
      };
    },
    close: () => closeServer(server),
  };
}
