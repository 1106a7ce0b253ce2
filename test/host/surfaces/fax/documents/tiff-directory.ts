import { readFile } from 'node:fs/promises';

/** TIFF compression tag values we meet: 4 is CCITT T.6, the G4 of fax. */
export const TIFF_COMPRESSION = { none: 1, ccittG3: 3, ccittG4: 4, lzw: 5 } as const;

export interface TiffPage {
  width: number;
  height: number;
  compression: number;
  xResolution: number;
  yResolution: number;
}

/**
 * Reads every image file directory of a TIFF (sharp's metadata does not report the
 * compression), so tests can check what ghostscript really wrote page by page.
 */
export async function readTiffPages(file: string): Promise<TiffPage[]> {
  const buf = await readFile(file);
  const order = buf.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') throw new Error('not a TIFF');
  const le = order === 'II';
  const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  if (u16(2) !== 42) throw new Error('not a classic TIFF');
  const pages: TiffPage[] = [];
  for (let ifd = u32(4); ifd !== 0 && pages.length < 10_000; ifd = u32(ifd + 2 + u16(ifd) * 12)) {
    const tags = new Map<number, number>();
    for (let i = 0; i < u16(ifd); i++) {
      const entry = ifd + 2 + i * 12;
      const tag = u16(entry);
      const type = u16(entry + 2);
      const value = entry + 8;
      if (type === 3) tags.set(tag, u16(value));
      else if (type === 4) tags.set(tag, u32(value));
      else if (type === 5) tags.set(tag, u32(u32(value)) / u32(u32(value) + 4)); // RATIONAL, stored at an offset
    }
    pages.push({
      width: tags.get(256) ?? 0,
      height: tags.get(257) ?? 0,
      compression: tags.get(259) ?? 1,
      xResolution: tags.get(282) ?? 0,
      yResolution: tags.get(283) ?? 0,
    });
  }
  return pages;
}
