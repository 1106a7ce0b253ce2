/**
 * What the hosted fax provider fakes (A, B, C) have in common: reading bodies, parsing forms
 * with busboy, checking Basic auth, downloading and counting PDFs, answering JSON.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { PDFDocument } from 'pdf-lib';

export interface FormFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface ParsedForm {
  fields: Record<string, string[]>;
  files: FormFile[];
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A URL-encoded or multipart body, as a provider's form parser sees it. */
export function parseForm(headers: IncomingHttpHeaders, body: Buffer): Promise<ParsedForm> {
  return new Promise((resolve, reject) => {
    const form: ParsedForm = { fields: {}, files: [] };
    const parser = busboy({ headers });
    parser.on('field', (name, value) => (form.fields[name] ??= []).push(value));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => form.files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    parser.on('close', () => resolve(form));
    parser.on('error', reject);
    parser.end(body);
  });
}

/** The user and password of a Basic Authorization header, or null. */
export function basicCredentials(req: IncomingMessage): { user: string; pass: string } | null {
  const header = req.headers.authorization;
  const match = header?.match(/^Basic\s+(\S+)$/i);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), pass: decoded.slice(colon + 1) };
}

/** Page count of a PDF, as the provider's renderer would find it; throws on anything else. */
export async function pdfPageCount(data: Buffer): Promise<number> {
  const doc = await PDFDocument.load(data);
  return doc.getPageCount();
}

/** What the provider makes of a document URL: it downloads the PDF and counts its pages. */
export async function fetchDocument(url: string): Promise<{ pages: number } | { error: string }> {
  try {
    const response = await fetch(url);
    if (!response.ok) return { error: `document download failed (HTTP ${response.status})` };
    return { pages: await pdfPageCount(Buffer.from(await response.arrayBuffer())) };
  } catch (err) {
    return { error: `document unusable: ${(err as Error).message}` };
  }
}

export async function countDocument(data: Buffer): Promise<{ pages: number } | { error: string }> {
  try {
    return { pages: await pdfPageCount(data) };
  } catch (err) {
    return { error: `document unusable: ${(err as Error).message}` };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Listens on a loopback ephemeral port; resolves the server's origin. */
export function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (!address || typeof address === 'string') return reject(new Error('no address'));
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

/** Closes a server, dropping held (hung) requests and idle keep-alive sockets. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A countdown of requests a control (failNext, hangAfterAccept) still applies to. */
export class Countdown<T = undefined> {
  private left = 0;
  private value: T | undefined;
  arm(n: number, value?: T): void {
    this.left = n;
    this.value = value;
  }
  /** Consumes one use; returns the armed value (or true) while any are left. */
  take(): { value: T | undefined } | null {
    if (this.left <= 0) return null;
    this.left--;
    return { value: this.value };
  }
}
