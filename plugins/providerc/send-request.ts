import type { FaxSendRequest } from 'switchboard/sdk';

/**
 * The form of POST .../Faxes.json: To, From, MediaUrl (our tokenized PDF URL), and StatusCallback,
 * the URL the host hands us (our manifest's callback alias); without one the host polls instead.
 */
export function providerCSendForm(request: FaxSendRequest, faxFrom: string): URLSearchParams {
  return new URLSearchParams([
    ['To', request.to],
    ['From', faxFrom],
    ['MediaUrl', request.document.url],
    ...(request.callbackUrl ? [['StatusCallback', request.callbackUrl] as [string, string]] : []),
  ]);
}
