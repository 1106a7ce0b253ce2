import { createEgressClient, egressAllows } from '../../../../core/kernel/egress.js';
import { BodyTooLargeError, EgressDeniedError, readBodyCapped } from '../../../../core/sdk/index.js';
import { faxErrors } from '../fax-errors.js';
import { invalidInput, platformErrors } from '../../../platform/errors/platform-errors.js';

export interface MediaFetchOptions {
  /** host or host:port patterns (as manifest egress entries). */
  allowedHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  onDenied?: (url: URL) => void;
}

/**
 * Downloads an inbound document from an attacker-controllable URL: only from allowed hosts
 * (every redirect hop too), within a size limit and a timeout.
 */
export async function fetchMedia(url: string, options: MediaFetchOptions): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw invalidInput('file_url', 'not a URL');
  }
  if (!options.allowedHosts.length) throw faxErrors.error('media_host_not_configured');
  if (!egressAllows(options.allowedHosts, target)) {
    options.onDenied?.(target);
    throw invalidInput('file_url', `host "${target.host}" is not an allowed media host`);
  }
  const client = createEgressClient({ egress: options.allowedHosts, ...(options.onDenied ? { onDenied: options.onDenied } : {}) });
  let response: Response;
  try {
    response = await client.fetch(target.href, { timeoutMs: options.timeoutMs, maxRedirects: 3 });
  } catch (err) {
    if (err instanceof EgressDeniedError) throw invalidInput('file_url', 'redirected to a host that is not an allowed media host');
    throw faxErrors.error('media_download_failed', { reason: `download failed (${(err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message})` });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw faxErrors.error('media_download_failed', { reason: `the media host answered ${response.status}` });
  }
  try {
    return await readBodyCapped(response, options.maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw platformErrors.error('payload_too_large', { what: 'file_url: document', limit: `${options.maxBytes} bytes` });
    throw faxErrors.error('media_download_failed', { reason: `download failed (${(err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message})` });
  }
}
