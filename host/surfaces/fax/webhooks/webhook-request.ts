import type { Request } from 'express';
import type { FaxWebhookKind, FaxWebhookRequest } from '../../../../core/sdk/index.js';
import { flatHeaders, readRawBody } from '../../../platform/http/raw-body.js';

/** The request as the plugin sees it: raw bytes, headers, query and the public URL that was called. */
export async function webhookRequest(req: Request, kind: FaxWebhookKind, baseUrl: string): Promise<FaxWebhookRequest> {
  const rawBody = await readRawBody(req);
  const query: Record<string, string | undefined> = {};
  for (const [k, v] of new URL(req.originalUrl, 'http://x').searchParams) if (!(k in query)) query[k] = v;
  return { kind, url: `${baseUrl}${req.originalUrl}`, rawBody, contentType: String(req.headers['content-type'] ?? ''), headers: flatHeaders(req), query };
}
