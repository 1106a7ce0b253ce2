import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FaxDocument, StorageProvider } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import storageLocal from '../../../../../plugins/storage-local/index.js';
import { createFaxDocument } from '../../../../../host/surfaces/fax/documents/index.js';
import { samplePdf } from './samples.js';

export interface StoredJob {
  jobId: string;
  root: string;
  storage: StorageProvider;
  document: FaxDocument;
  pdf: Buffer;
  cleanup(): Promise<void>;
}

/** A job's PDF (pdfkit, `pages` pages) in real local storage, with the host's FaxDocument over it. */
export async function storeJobDocument(options: { pages: number; jobId?: string; paper?: 'letter' | 'a4'; gsTimeoutMs?: number }): Promise<StoredJob> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'switchboard-storage-'));
  const root = path.join(dataDir, 'storage');
  const started: StartedPlugin = await startPlugin(storageLocal, { pluginId: 'storage-local', settings: { root: 'storage' }, dataDir });
  const storage = started.instance.providers.storage!;
  const jobId = options.jobId ?? `job-${Math.random().toString(36).slice(2, 10)}`;
  const pdf = await samplePdf(options.pages);
  const pdfKey = `jobs/${jobId}/document.pdf`;
  await withinTime(storage.put(pdfKey, pdf), 15_000, 'storage-local put of the job PDF');
  const document = createFaxDocument({
    jobId,
    pdfKey,
    url: `http://127.0.0.1/fax/${jobId}/pdf?token=t`,
    pages: options.pages,
    storage,
    paper: options.paper ?? 'letter',
    gsTimeoutMs: options.gsTimeoutMs ?? 60_000,
  });
  return {
    jobId,
    root,
    storage,
    document,
    pdf,
    async cleanup() {
      await started.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Fails fast, naming the step, instead of leaving a test file hanging until the runner kills it. */
function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
