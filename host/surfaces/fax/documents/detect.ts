export type DocumentType = 'pdf' | 'png' | 'jpeg' | 'tiff' | 'text';

/** How many leading bytes detection looks at; callers may pass more, the rest is ignored. */
export const DETECT_SAMPLE_BYTES = 8192;

const PDF = Buffer.from('%PDF-', 'latin1');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const TIFF_LE = Buffer.from([0x49, 0x49, 0x2a, 0x00]);
const TIFF_BE = Buffer.from([0x4d, 0x4d, 0x00, 0x2a]);

/**
 * The type of a document from its first bytes (magic numbers), never from its name or declared
 * type. Text is plain UTF-8 without binary control characters; anything else is null.
 */
export function detectDocumentType(head: Buffer): DocumentType | null {
  const sample = head.subarray(0, DETECT_SAMPLE_BYTES);
  if (startsWith(sample, PDF)) return 'pdf';
  if (startsWith(sample, PNG)) return 'png';
  if (startsWith(sample, JPEG)) return 'jpeg';
  if (startsWith(sample, TIFF_LE) || startsWith(sample, TIFF_BE)) return 'tiff';
  return isPlainText(sample) ? 'text' : null;
}

function startsWith(buf: Buffer, magic: Buffer): boolean {
  return buf.length >= magic.length && buf.subarray(0, magic.length).equals(magic);
}

/** Printable text: tab, LF, CR and form feed are the only control characters a text fax may hold. */
const ALLOWED_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d]);

function isPlainText(sample: Buffer): boolean {
  // The caller may have cut the sample anywhere, so a partial character at the end is tolerated.
  const bytes = withoutPartialTail(sample);
  if (bytes.length === 0) return false;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !ALLOWED_CONTROLS.has(code)) || code === 0x7f) return false;
    // C1 controls (U+0080..U+009F) mean latin-1 bytes decoded by luck, or binary.
    if (code >= 0x80 && code <= 0x9f) return false;
  }
  return true;
}

/**
 * The sample without a multi-byte UTF-8 sequence cut short at its end, so a sample taken
 * from the middle of a character still counts as valid UTF-8.
 */
function withoutPartialTail(sample: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, sample.length); back++) {
    const byte = sample[sample.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? sample.subarray(0, sample.length - back) : sample;
  }
  return sample;
}
