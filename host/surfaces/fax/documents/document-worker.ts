import { parentPort } from 'node:worker_threads';
import { prependCover, renderCoverPage, type CoverValues } from './cover-page.js';
import { InvalidDocumentError, UnsupportedDocumentError } from './errors.js';
import { imageToPdf } from './image-to-pdf.js';
import { mergePdfs } from './pdf-merge.js';
import { normalizeToPdf, type NormalizedDocument } from './normalize.js';
import type { Paper } from './paper.js';
import { inspectPdf } from './pdf-inspect.js';
import { reportLibraryLoads } from './lazy-modules.js';
import { movableMemory } from './thread-transfer.js';

/** One piece of document work a thread of the DocumentPool does. */
export type DocumentTask =
  | { kind: 'normalize'; bytes: Uint8Array; paper: Paper }
  | { kind: 'inspect-pdf'; bytes: Uint8Array }
  | { kind: 'image-to-pdf'; bytes: Uint8Array; paper: Paper }
  | { kind: 'with-cover'; pdf: Uint8Array; template: string; values: CoverValues; paper: Paper }
  | { kind: 'merge'; pdfs: Uint8Array[] };

/** What each task kind answers. */
export interface DocumentResults {
  normalize: NormalizedDocument;
  'inspect-pdf': { pages: number };
  'image-to-pdf': { pdf: Buffer; pages: number };
  'with-cover': { pdf: Buffer; undrawable: string[] };
  merge: { pdf: Buffer };
}

/** A job's first load of a library begins ('start') or is over ('end'). */
export type LibraryLoad = { id: number | undefined; library: 'start' | 'end' };

/** A document error crosses the thread as its code and message; anything else as a message. */
export type DocumentOutcome = { id: number; ok: true; value: unknown } | { id: number; ok: false; code?: 'invalid_document' | 'unsupported_document'; message: string };

// A clone of a Buffer arrives as a plain Uint8Array.
const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

async function perform(task: DocumentTask): Promise<unknown> {
  switch (task.kind) {
    case 'normalize':
      return normalizeToPdf(buffer(task.bytes), { paper: task.paper });
    case 'inspect-pdf':
      return inspectPdf(buffer(task.bytes));
    case 'image-to-pdf':
      return imageToPdf(buffer(task.bytes), { paper: task.paper });
    case 'with-cover': {
      const cover = await renderCoverPage(task.template, task.values, task.paper);
      return { pdf: await prependCover(cover.pdf, buffer(task.pdf)), undrawable: cover.undrawable };
    }
    case 'merge':
      return { pdf: await mergePdfs(task.pdfs.map(buffer), (index) => `file ${index + 1} cannot be combined with the others; it may be damaged`) };
  }
}

// The libraries load on a job's first need of them (a well-formed PDF needs none); the pool stops
// the job's clock meanwhile, so its budget is for its document, not for a cold start.
let current: number | undefined;
reportLibraryLoads((phase) => parentPort!.postMessage({ id: current, library: phase } satisfies LibraryLoad));
parentPort!.postMessage({ ready: true });

parentPort!.on('message', ({ id, task }: { id: number; task: DocumentTask }) => {
  current = id;
  perform(task).then(
    // A result's PDF (the task's own bytes, or what a library made) goes back moved, not cloned.
    (value) => parentPort!.postMessage({ id, ok: true, value } satisfies DocumentOutcome, movableMemory([(value as { pdf?: unknown }).pdf])),
    (err: unknown) => {
      const code = err instanceof InvalidDocumentError ? 'invalid_document' : err instanceof UnsupportedDocumentError ? 'unsupported_document' : undefined;
      parentPort!.postMessage({ id, ok: false, ...(code ? { code } : {}), message: (err as Error)?.message ?? String(err) } satisfies DocumentOutcome);
    },
  );
});
