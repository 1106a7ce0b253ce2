import { Worker } from 'node:worker_threads';
import { faxErrors } from '../fax-errors.js';
import type { CoverValues } from './cover-page.js';
import type { DocumentOutcome, DocumentResults, DocumentTask, LibraryLoad } from './document-worker.js';
import { InvalidDocumentError, UnsupportedDocumentError } from './errors.js';
import type { NormalizedDocument } from './normalize.js';
import type { Paper } from './paper.js';
import { movableMemory, ownCopy } from './thread-transfer.js';
import { detectDocumentType } from './detect.js';
import { readPdfStructure } from './pdf-structure.js';

/** Time a document's work may take: `baseMs` plus `msPerMb` for each MB of its input. */
export interface DocumentBudget {
  baseMs: number;
  msPerMb: number;
}

export interface DocumentPoolOptions {
  /** Threads at most (FAX_DOCUMENT_THREADS); read whenever one more would start. */
  threads: () => number;
  budget: () => DocumentBudget;
  /** V8 heap of one thread; a document needing more is refused as too complex. */
  heapMb?: number;
}

interface Job {
  id: number;
  task: DocumentTask;
  budgetMs: number;
  sizeMb: number;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Its modules are loaded: jobs start (and their deadlines run) only then. */
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** When the job's budget runs out (Date.now() time); moved on by the time its libraries took to load. */
  deadline?: number;
  /** While a library loads for the job: when the load began. */
  pausedAt?: number;
}

const MB = 1024 * 1024;
/**
 * A PDF this small whose structure reads with at most this much inflating is checked in the
 * caller's thread: tens of microseconds, bounded by these sizes, where a thread's round trip costs
 * several hundred (two messages, a wake-up). Anything else goes to a thread, as before.
 */
const INLINE_PDF_BYTES = 32 * 1024;
const INLINE_INFLATE_BYTES = 128 * 1024;
const DEFAULT_HEAP_MB = 512;
/** Longest a library's first load may take (it is not the document's budget, but a thread must not hang on it). */
const LIBRARY_LOAD_MS = 60_000;

/**
 * Document inspection and conversion (PDF checks, text and image to PDF, cover pages) in worker
 * threads, so no upload holds the gateway's event loop. Each job has a deadline from its size;
 * past it, or past the thread's heap, the thread is terminated and the upload refused 422
 * `document_too_complex`. Threads start on demand and never keep the process alive.
 */
export class DocumentPool {
  private readonly threads = new Set<Thread>();
  private readonly idle: Thread[] = [];
  private readonly queue: Job[] = [];
  private next = 0;
  private closed = false;

  constructor(private readonly options: DocumentPoolOptions) {}

  /** normalizeToPdf in a thread (a small well-formed PDF here): the job's PDF, its pages and the upload's type. */
  async normalize(bytes: Buffer, paper: Paper): Promise<NormalizedDocument> {
    const small = bytes.length <= INLINE_PDF_BYTES && detectDocumentType(bytes) === 'pdf';
    // Throws InvalidDocumentError for what it can tell for certain (encrypted, no pages), as the thread would.
    const quick = small ? readPdfStructure(bytes, { inflateBudget: INLINE_INFLATE_BYTES }) : undefined;
    if (quick) return { pdf: bytes, pages: quick.pages, sourceType: 'pdf' };
    const done = await this.run<'normalize'>({ kind: 'normalize', bytes: ownCopy(bytes), paper }, bytes.length);
    return { ...done, pdf: asBuffer(done.pdf) };
  }

  /** inspectPdf in a thread. */
  inspectPdf(bytes: Buffer): Promise<{ pages: number }> {
    return this.run<'inspect-pdf'>({ kind: 'inspect-pdf', bytes: ownCopy(bytes) }, bytes.length);
  }

  /** imageToPdf in a thread. */
  async imageToPdf(bytes: Buffer, paper: Paper): Promise<{ pdf: Buffer; pages: number }> {
    const done = await this.run<'image-to-pdf'>({ kind: 'image-to-pdf', bytes: ownCopy(bytes), paper }, bytes.length);
    return { ...done, pdf: asBuffer(done.pdf) };
  }

  /** renderCoverPage and prependCover in a thread: the cover followed by `pdf`, and the characters the cover's font could not draw. */
  async withCover(pdf: Buffer, cover: { template: string; values: CoverValues; paper: Paper }): Promise<{ pdf: Buffer; undrawable: string[] }> {
    const done = await this.run<'with-cover'>({ kind: 'with-cover', pdf: ownCopy(pdf), ...cover }, pdf.length);
    return { pdf: asBuffer(done.pdf), undrawable: done.undrawable };
  }

  /** mergePdfs in a thread: the pages of `pdfs` in order, as one PDF. */
  async merge(pdfs: Buffer[]): Promise<Buffer> {
    const done = await this.run<'merge'>({ kind: 'merge', pdfs: pdfs.map(ownCopy) }, pdfs.reduce((n, pdf) => n + pdf.length, 0));
    return asBuffer(done.pdf);
  }

  /** Terminates every thread; queued and running work is refused. */
  async close(): Promise<void> {
    this.closed = true;
    const refused = () => new Error('the document pool is closed');
    for (const job of this.queue.splice(0)) job.reject(refused());
    await Promise.all(
      [...this.threads].map((t) => {
        t.job?.reject(refused());
        return this.retire(t);
      }),
    );
  }

  private run<K extends keyof DocumentResults>(task: DocumentTask & { kind: K }, sizeBytes: number): Promise<DocumentResults[K]> {
    if (this.closed) return Promise.reject(new Error('the document pool is closed'));
    const { baseMs, msPerMb } = this.options.budget();
    const sizeMb = sizeBytes / MB;
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.next++, task, sizeMb, budgetMs: Math.round(baseMs + msPerMb * sizeMb), resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const thread = this.idle.pop() ?? (this.threads.size < Math.max(1, this.options.threads()) ? this.spawn() : undefined);
      if (!thread) return;
      this.start(thread, this.queue.shift()!);
    }
  }

  private start(thread: Thread, job: Job): void {
    thread.job = job;
    // A thread at work keeps the process alive until its answer; an idle one does not.
    thread.worker.ref();
    if (thread.ready) this.begin(thread, job);
  }

  private begin(thread: Thread, job: Job): void {
    // The deadline counts from the start of the work, not the wait for a thread.
    thread.deadline = Date.now() + job.budgetMs;
    this.arm(thread, job, job.budgetMs, `processing it took longer than its budget of ${seconds(job.budgetMs)} for ${job.sizeMb.toFixed(1)} MB`);
    // The task's bytes are the pool's own copies (ownCopy): moved to the thread, not cloned.
    const task = job.task;
    thread.worker.postMessage({ id: job.id, task }, movableMemory('pdfs' in task ? task.pdfs : ['bytes' in task ? task.bytes : task.pdf]));
  }

  private arm(thread: Thread, job: Job, ms: number, reason: string): void {
    clearTimeout(thread.timer);
    thread.timer = setTimeout(() => {
      void this.retire(thread);
      job.reject(faxErrors.error('document_too_complex', { reason }));
      this.pump();
    }, ms);
  }

  /** A library's first load in the thread stops the job's clock; the budget left runs on after it. */
  private libraryLoad(thread: Thread, job: Job, phase: LibraryLoad['library']): void {
    if (phase === 'start') {
      thread.pausedAt = Date.now();
      this.arm(thread, job, LIBRARY_LOAD_MS, `its libraries did not load within ${seconds(LIBRARY_LOAD_MS)}`);
    } else if (thread.pausedAt !== undefined) {
      thread.deadline! += Date.now() - thread.pausedAt;
      thread.pausedAt = undefined;
      this.arm(thread, job, Math.max(0, thread.deadline! - Date.now()), `processing it took longer than its budget of ${seconds(job.budgetMs)} for ${job.sizeMb.toFixed(1)} MB`);
    }
  }

  private spawn(): Thread {
    const heapMb = this.options.heapMb ?? DEFAULT_HEAP_MB;
    const worker = new Worker(new URL('./document-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    worker.unref();
    const thread: Thread = { worker, ready: false };
    this.threads.add(thread);
    worker.on('message', (outcome: DocumentOutcome | LibraryLoad | { ready: true }) => {
      const job = thread.job;
      if ('ready' in outcome) {
        thread.ready = true;
        if (job) this.begin(thread, job);
        return;
      }
      if (!job || job.id !== outcome.id) return;
      if ('library' in outcome) return this.libraryLoad(thread, job, outcome.library);
      this.finish(thread);
      this.idle.push(thread);
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(revive(outcome));
      this.pump();
    });
    // A thread that dies (its heap exhausted, a native fault) takes only its own job with it.
    const died = (err?: Error) => {
      const job = thread.job;
      void this.retire(thread);
      if (job) {
        const outOfMemory = (err as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        job.reject(outOfMemory ? faxErrors.error('document_too_complex', { reason: `processing it needed more than ${heapMb} MB of memory` }) : (err ?? new Error('the document thread exited')));
      }
      this.pump();
    };
    worker.on('error', died);
    worker.on('exit', () => {
      if (this.threads.has(thread)) died();
    });
    return thread;
  }

  private finish(thread: Thread): void {
    thread.worker.unref();
    clearTimeout(thread.timer);
    thread.timer = undefined;
    thread.deadline = undefined;
    thread.pausedAt = undefined;
    thread.job = undefined;
  }

  private async retire(thread: Thread): Promise<void> {
    this.finish(thread);
    this.threads.delete(thread);
    const at = this.idle.indexOf(thread);
    if (at >= 0) this.idle.splice(at, 1);
    await thread.worker.terminate();
  }
}

function revive(outcome: Extract<DocumentOutcome, { ok: false }>): Error {
  if (outcome.code === 'invalid_document') return new InvalidDocumentError(outcome.message);
  if (outcome.code === 'unsupported_document') return new UnsupportedDocumentError(outcome.message);
  return new Error(outcome.message);
}

// A Buffer comes back from a thread as a plain Uint8Array.
const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
