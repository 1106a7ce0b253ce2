import type { StorageProvider } from '../../../../core/sdk/index.js';
import type { FaxJobRow, FaxJobStore, NewFaxJob } from './job-store.js';

/** Submits stored together at most; a full batch is written at once. */
const MAX_BATCH = 64;

interface PendingSubmit {
  job: NewFaxJob;
  pdf: Buffer;
  now: Date;
  resolve: (row: FaxJobRow) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit of submits: concurrent `POST /fax` requests share their durable work. Submits
 * arriving within `waitMs` of a batch's first are written together: their documents put in
 * parallel under one storage lease (local storage shares the directory fsyncs, S3 runs the puts
 * side by side), then their rows inserted by one statement (one commit, one round trip). Each
 * submit settles only after its document and its row are durable, as a submit alone does; a
 * document whose row was not inserted is deleted, as a submit alone does.
 */
export class SubmitGroupCommit {
  private batch: PendingSubmit[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      store: FaxJobStore;
      withStorage: <T>(fn: (storage: StorageProvider) => Promise<T>) => Promise<T>;
      /** FAX_GROUP_COMMIT_MS, read per batch. */
      waitMs: () => number;
    },
  ) {}

  get enabled(): boolean {
    return this.deps.waitMs() > 0;
  }

  /** Stores `pdf` under the job's `pdfKey` and inserts the job; settles once both are durable. */
  submit(job: NewFaxJob, pdf: Buffer, now = new Date()): Promise<FaxJobRow> {
    return new Promise((resolve, reject) => {
      this.batch.push({ job, pdf, now, resolve, reject });
      if (this.batch.length >= MAX_BATCH) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.deps.waitMs());
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = [];
    this.commit(batch).catch((err) => {
      for (const s of batch) s.reject(err);
    });
  }

  private async commit(batch: PendingSubmit[]): Promise<void> {
    const { store, withStorage } = this.deps;
    const puts = await withStorage((storage) => Promise.allSettled(batch.map((s) => storage.put(s.job.pdfKey, s.pdf))));
    const stored = batch.filter((s, i) => {
      const put = puts[i]!;
      if (put.status === 'rejected') s.reject(put.reason);
      return put.status === 'fulfilled';
    });
    if (!stored.length) return;
    let rows: FaxJobRow[];
    try {
      rows = await store.insertMany(stored.map((s) => ({ job: s.job, now: s.now })));
    } catch {
      // One bad row must not fail the others: each alone, as without group commit.
      await Promise.all(stored.map((s) => this.insertAlone(s)));
      return;
    }
    stored.forEach((s, i) => s.resolve(rows[i]!));
  }

  private async insertAlone(s: PendingSubmit): Promise<void> {
    try {
      s.resolve(await this.deps.store.insert(s.job, s.now));
    } catch (err) {
      await this.deps.withStorage((storage) => storage.delete(s.job.pdfKey)).catch(() => {});
      s.reject(err);
    }
  }
}
