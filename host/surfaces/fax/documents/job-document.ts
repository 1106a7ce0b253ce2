import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FaxDocument, StorageProvider } from '../../../../core/sdk/index.js';
import { pdfToFaxTiff } from './ghostscript.js';
import type { Paper } from './paper.js';

export interface JobDocumentOptions {
  jobId: string;
  /** Storage key of the job's PDF; artifacts are stored beside it. */
  pdfKey: string;
  /** Tokenized public URL of the PDF. */
  url: string;
  pages: number;
  storage: StorageProvider;
  /** Default paper of renderTiff. */
  paper: Paper;
  gsTimeoutMs: number;
}

/** Name of the rendered fax TIFF beside the job's PDF. */
export const FAX_TIFF_NAME = 'fax.tiff';

/** The host's FaxDocument for one job: its PDF in storage, artifacts beside it. */
export function createFaxDocument(options: JobDocumentOptions): FaxDocument {
  const { storage, pdfKey } = options;
  const dir = path.posix.dirname(pdfKey);
  const artifactKey = (name: string) => (dir === '.' ? name : `${dir}/${name}`);
  const located = (key: string) => {
    const localPath = storage.localPath?.(key);
    return localPath === undefined ? { key } : { key, localPath };
  };

  return {
    url: options.url,
    pages: options.pages,
    read: () => storage.get(pdfKey),

    async saveArtifact(name, bytes) {
      assertArtifactName(name);
      const key = artifactKey(name);
      await storage.put(key, bytes);
      return located(key);
    },

    async renderTiff(renderOptions) {
      const paper = renderOptions?.paper ?? options.paper;
      const work = await mkdtemp(path.join(tmpdir(), `switchboard-fax-${safeName(options.jobId)}-`));
      try {
        const pdfPath = await localPdf(storage, pdfKey, work);
        const tiffPath = path.join(work, FAX_TIFF_NAME);
        const { pages } = await pdfToFaxTiff(pdfPath, tiffPath, { paper, timeoutMs: options.gsTimeoutMs });
        const key = artifactKey(FAX_TIFF_NAME);
        await storage.put(key, await readFile(tiffPath));
        return { ...located(key), pages };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}

/** The PDF as a file ghostscript can open: storage's own file when it has one, else a copy. */
async function localPdf(storage: StorageProvider, key: string, work: string): Promise<string> {
  const local = storage.localPath?.(key);
  if (local && (await stat(local).catch(() => null))?.isFile()) return local;
  const copy = path.join(work, 'document.pdf');
  await writeFile(copy, await storage.get(key), { mode: 0o600 });
  return copy;
}

function assertArtifactName(name: string): void {
  if (typeof name !== 'string' || !/^[A-Za-z0-9._-]{1,128}$/.test(name) || name === '.' || name === '..') {
    throw new TypeError(`artifact name "${String(name)}" must be a plain file name of [A-Za-z0-9._-]`);
  }
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
}
