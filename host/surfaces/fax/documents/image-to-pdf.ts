import type { Metadata } from 'sharp';
import { loadSharp } from './lazy-modules.js';
import { InvalidDocumentError } from './errors.js';
import { renderPdf } from './pdfkit-buffer.js';
import { PAPER_POINTS, type Paper } from './paper.js';

export interface ImageToPdfOptions {
  paper: Paper;
  /** Largest page, in pixels, we agree to decode (default 100 megapixels). */
  maxPixels?: number;
  /** Most pages of a multi-page TIFF we agree to convert (default 500). */
  maxPages?: number;
  /** Margin on every side, in points (default 18, a quarter inch). */
  margin?: number;
}

/** Pages are downscaled to this resolution at most: fax fine mode is 204x196 dpi. */
const MAX_DPI = 300;

/**
 * Converts a PNG, JPEG or TIFF (every page of a multi-page TIFF) to a PDF with one page per
 * image page, each scaled to fit the paper, centred, on white.
 */
export async function imageToPdf(image: Buffer, options: ImageToPdfOptions): Promise<{ pdf: Buffer; pages: number }> {
  const maxPixels = options.maxPixels ?? 100_000_000;
  const margin = options.margin ?? 18;
  const { width, height } = PAPER_POINTS[options.paper];
  const boxWidth = width - 2 * margin;
  const boxHeight = height - 2 * margin;
  const pageCount = await countPages(image, options.maxPages ?? 500);
  const pngs: Buffer[] = [];
  for (let page = 0; page < pageCount; page++) {
    pngs.push(await decodePage(image, page, maxPixels, boxWidth, boxHeight));
  }
  const pdf = await renderPdf({ size: [width, height], margin }, (doc) => {
    for (const png of pngs) {
      doc.addPage({ size: [width, height], margin });
      doc.image(png, margin, margin, { fit: [boxWidth, boxHeight], align: 'center', valign: 'center' });
    }
  });
  return { pdf, pages: pngs.length };
}

async function countPages(image: Buffer, maxPages: number): Promise<number> {
  const sharp = await loadSharp();
  let pages: number | undefined;
  try {
    ({ pages } = await sharp(image, { pages: -1, limitInputPixels: false }).metadata());
  } catch (err) {
    throw new InvalidDocumentError(`the image cannot be read: ${reason(err)}`, { cause: err });
  }
  const count = pages ?? 1;
  if (count > maxPages) throw new InvalidDocumentError(`the image has ${count} pages; at most ${maxPages} are accepted`);
  return count;
}

/** One page, oriented, flattened on white, at no more than MAX_DPI on the paper, as PNG. */
async function decodePage(image: Buffer, page: number, maxPixels: number, boxWidth: number, boxHeight: number): Promise<Buffer> {
  const sharp = await loadSharp();
  const input = () => sharp(image, { page, limitInputPixels: maxPixels });
  let meta: Metadata;
  try {
    meta = await sharp(image, { page, limitInputPixels: false }).metadata();
  } catch (err) {
    throw new InvalidDocumentError(`page ${page + 1} of the image cannot be read: ${reason(err)}`, { cause: err });
  }
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (pixels > maxPixels) {
    throw new InvalidDocumentError(
      `page ${page + 1} of the image is ${meta.width}x${meta.height} pixels; at most ${maxPixels} pixels per page are accepted`,
    );
  }
  try {
    return await input()
      .rotate() // apply the EXIF orientation of photos
      .flatten({ background: '#ffffff' })
      .resize({
        width: Math.round((boxWidth / 72) * MAX_DPI),
        height: Math.round((boxHeight / 72) * MAX_DPI),
        fit: 'inside',
        withoutEnlargement: true,
      })
      .png()
      .toBuffer();
  } catch (err) {
    throw new InvalidDocumentError(`page ${page + 1} of the image cannot be decoded: ${reason(err)}`, { cause: err });
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}
