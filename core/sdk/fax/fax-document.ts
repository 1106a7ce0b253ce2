import { NotAcceptedError } from '../errors.js';
import type { FaxSendRequest } from '../contracts/fax.js';

/**
 * The job's PDF as a file part for an upload. A storage failure here means nothing reached the
 * provider, so it is NotAccepted (the host may try again).
 */
export async function readDocumentFile(request: FaxSendRequest): Promise<{ file: Blob; filename: string }> {
  let pdf: Buffer;
  try {
    pdf = await request.document.read();
  } catch (err) {
    throw new NotAcceptedError(`could not read the document of job ${request.jobId}`, undefined, { cause: err });
  }
  return { file: new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), filename: `${request.jobId}.pdf` };
}

/**
 * True when a provider's record of a fax names our job's PDF URL (a string or a list of them):
 * how a fax sent by URL is found again when the answer to the send was lost.
 */
export function namesDocumentOfJob(documentUrl: unknown, jobId: string): boolean {
  const urls = Array.isArray(documentUrl) ? documentUrl : [documentUrl];
  const needles = [`/fax/${jobId}/pdf`, `/fax/${encodeURIComponent(jobId)}/pdf`];
  return urls.some((url) => typeof url === 'string' && needles.some((needle) => url.includes(needle)));
}
