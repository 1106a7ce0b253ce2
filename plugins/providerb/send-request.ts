import type { FaxSendRequest } from 'switchboard/sdk';
import { readDocumentFile } from 'switchboard/sdk/fax';

/**
 * The body of POST /projects/{p}/faxes: JSON `{to, contentUrl}`, or multipart `file` + `to`.
 * The contentUrl (our `/fax/{jobId}/pdf` URL) is what finds the fax again if the answer is lost.
 */
export async function providerBSendBody(request: FaxSendRequest, mode: 'url' | 'upload'): Promise<{ body: string | FormData; contentType?: string }> {
  if (mode === 'url') {
    return { body: JSON.stringify({ to: request.to, contentUrl: request.document.url }), contentType: 'application/json' };
  }
  const { file, filename } = await readDocumentFile(request);
  const form = new FormData();
  form.append('to', request.to);
  form.append('file', file, filename);
  return { body: form };
}
