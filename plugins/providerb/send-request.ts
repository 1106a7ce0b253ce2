import { NotAcceptedError, type FaxSendRequest } from 'switchboard/sdk';

/**
 * The body of POST /projects/{p}/faxes: JSON `{to, contentUrl}`, or multipart `file` + `to`.
 * The contentUrl (our `/fax/{jobId}/pdf` URL) is what finds the fax again if the answer is lost.
 */
export async function providerBSendBody(request: FaxSendRequest, mode: 'url' | 'upload'): Promise<{ body: string | FormData; contentType?: string }> {
  if (mode === 'url') {
    return { body: JSON.stringify({ to: request.to, contentUrl: request.document.url }), contentType: 'application/json' };
  }
  let pdf: Buffer;
  try {
    pdf = await request.document.read();
  } catch (err) {
    throw new NotAcceptedError(`could not read the document of job ${request.jobId}`, undefined, { cause: err });
  }
  const form = new FormData();
  form.append('to', request.to);
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), `${request.jobId}.pdf`);
  return { body: form };
}

/** True when a fax's contentUrl (a string or a list) is the PDF URL of our job. */
export function isDocumentOfJob(contentUrl: unknown, jobId: string): boolean {
  const urls = Array.isArray(contentUrl) ? contentUrl : [contentUrl];
  const needles = [`/fax/${jobId}/pdf`, `/fax/${encodeURIComponent(jobId)}/pdf`];
  return urls.some((url) => typeof url === 'string' && needles.some((needle) => url.includes(needle)));
}
