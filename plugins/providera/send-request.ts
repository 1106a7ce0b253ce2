import { NotAcceptedError, type FaxSendRequest } from 'switchboard/sdk';

/**
 * The form of POST /faxes. `tag[job_id]` lets us find the fax again by our own id when the
 * answer to a send is lost.
 */
export async function providerASendForm(request: FaxSendRequest, mode: 'url' | 'upload'): Promise<URLSearchParams | FormData> {
  const base = request.publicBaseUrl.replace(/\/+$/, '');
  const fields: Array<[string, string]> = [
    ['to', request.to],
    ['callback_url', `${base}/providera-callback?job_id=${encodeURIComponent(request.jobId)}`],
    ['tag[job_id]', request.jobId],
  ];
  if (mode === 'url') return new URLSearchParams([...fields, ['content_url[]', request.document.url]]);

  let pdf: Buffer;
  try {
    pdf = await request.document.read();
  } catch (err) {
    throw new NotAcceptedError(`could not read the document of job ${request.jobId}`, undefined, { cause: err });
  }
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), `${request.jobId}.pdf`);
  return form;
}
