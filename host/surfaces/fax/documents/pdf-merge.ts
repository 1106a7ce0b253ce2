import { InvalidDocumentError } from './errors.js';
import { loadPdfLib } from './lazy-modules.js';

/**
 * Every page of `pdfs`, in order, as one PDF (the first document's metadata kept). A document that
 * cannot be read throws InvalidDocumentError with `damaged(index)` as its message.
 */
export async function mergePdfs(pdfs: Buffer[], damaged: (index: number) => string): Promise<Buffer> {
  const { PDFDocument } = await loadPdfLib();
  const load = async (index: number) => {
    try {
      return await PDFDocument.load(pdfs[index]!, { updateMetadata: false });
    } catch (err) {
      throw new InvalidDocumentError(damaged(index), { cause: err });
    }
  };
  const merged = await load(0);
  for (let i = 1; i < pdfs.length; i++) {
    const body = await load(i);
    for (const page of await merged.copyPages(body, body.getPageIndices())) merged.addPage(page);
  }
  return Buffer.from(await merged.save());
}
