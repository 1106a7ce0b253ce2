/**
 * The image and PDF libraries a fax needs only when a document is converted, rendered or does not
 * pass the quick PDF check: loaded on first use, so a gateway (or a document thread) that only
 * takes well-formed PDFs never maps libvips, pdfkit's fonts or pdf-lib (about 15 MB per thread).
 */
export const loadSharp = () => once('sharp', async () => (await import('sharp')).default);
export const loadPdfKit = () => once('pdfkit', async () => (await import('pdfkit')).default);
export const loadPdfLib = (): Promise<typeof import('pdf-lib')> => once('pdf-lib', () => import('pdf-lib'));

/** 'start' before this thread's first load of a library begins, 'end' once no first load is under way. */
export type LibraryLoadListener = (phase: 'start' | 'end') => void;

let listener: LibraryLoadListener | undefined;
let loading = 0;
const libraries = new Map<string, Promise<unknown>>();

/** A document thread reports its libraries' first loads, so its job's deadline leaves them out. */
export function reportLibraryLoads(report: LibraryLoadListener): void {
  listener = report;
}

function once<T>(name: string, load: () => Promise<T>): Promise<T> {
  let loaded = libraries.get(name) as Promise<T> | undefined;
  if (!loaded) {
    if (loading++ === 0) listener?.('start');
    loaded = load().finally(() => {
      if (--loading === 0) listener?.('end');
    });
    libraries.set(name, loaded);
  }
  return loaded;
}
