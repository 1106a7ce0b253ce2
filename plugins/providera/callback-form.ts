/**
 * The text fields of a status callback body. Provider A posts form data: URL-encoded or
 * multipart; file parts are ignored.
 */
export function callbackFields(rawBody: Buffer, contentType: string): Map<string, string> {
  const type = contentType.toLowerCase();
  if (type.startsWith('multipart/form-data')) return multipartFields(rawBody, contentType);
  return new Map(new URLSearchParams(rawBody.toString('utf8')));
}

function multipartFields(rawBody: Buffer, contentType: string): Map<string, string> {
  const fields = new Map<string, string>();
  const boundary = contentType.match(/boundary=(?:"([^"]+)"|([^;\s]+))/i);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) return fields;
  // latin1 keeps bytes 1:1, so the split is exact; values are decoded as UTF-8 after.
  for (const part of rawBody.toString('latin1').split(`--${marker}`)) {
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    const name = headers.match(/content-disposition:[^\r\n]*\bname="([^"]*)"/i)?.[1];
    if (name === undefined || /\bfilename="/i.test(headers)) continue;
    const value = part.slice(headerEnd + 4).replace(/\r\n$/, '');
    if (!fields.has(name)) fields.set(name, Buffer.from(value, 'latin1').toString('utf8'));
  }
  return fields;
}
