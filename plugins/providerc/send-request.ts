import type { FaxSendRequest } from 'switchboard/sdk';

/** The form of POST .../Faxes.json: To, From, MediaUrl (our tokenized PDF URL), StatusCallback. */
export function providerCSendForm(request: FaxSendRequest, faxFrom: string): URLSearchParams {
  const base = request.publicBaseUrl.replace(/\/+$/, '');
  return new URLSearchParams([
    ['To', request.to],
    ['From', faxFrom],
    ['MediaUrl', request.document.url],
    ['StatusCallback', `${base}/providerc-callback?job_id=${encodeURIComponent(request.jobId)}`],
  ]);
}
