import type { FaxSendRequest } from 'switchboard/sdk';
import { readDocumentFile } from 'switchboard/sdk/fax';

/**
 * The form of POST /faxes. `tag[job_id]` lets us find the fax again by our own id when the
 * answer to a send is lost. `callback_url` is the URL the host hands us (our manifest's callback
 * alias); without one the host polls the status instead.
 */
export async function providerASendForm(request: FaxSendRequest, mode: 'url' | 'upload'): Promise<URLSearchParams | FormData> {
  const fields: Array<[string, string]> = [
    ['to', request.to],
    ...(request.callbackUrl ? [['callback_url', request.callbackUrl] as [string, string]] : []),
    ['tag[job_id]', request.jobId],
  ];
  if (mode === 'url') return new URLSearchParams([...fields, ['content_url[]', request.document.url]]);
  const { file, filename } = await readDocumentFile(request);
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  form.append('file', file, filename);
  return form;
}
