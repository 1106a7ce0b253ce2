import type { HttpAction } from '../../manifest/index.js';
import { renderBody, type RenderedBody } from './request-body.js';
import { deleteHeader, hasHeader, renderHeaders } from './request-headers.js';
import { renderUrl } from './request-url.js';
import type { TemplateValues } from './template-values.js';

/** One request of an action, rendered from the manifest's templates and nothing sent yet. */
export interface RenderedRequest {
  method: HttpAction['method'];
  url: URL;
  headers: Record<string, string>;
  body: RenderedBody;
}

/**
 * Renders an action for one call. Throws RequestRenderError when a value cannot be placed
 * without changing the request's structure.
 */
export function renderRequest(action: HttpAction, values: TemplateValues): RenderedRequest {
  const url = renderUrl(action, values);
  const headers = renderHeaders(action, values);
  const body = renderBody(action.body, values);
  if (!hasHeader(headers, 'Accept')) headers.Accept = 'application/json';
  if (body.kind === 'json' && !hasHeader(headers, 'Content-Type')) headers['Content-Type'] = 'application/json';
  // fetch writes these itself; a manifest value would lose the multipart boundary.
  if (body.kind === 'form' || body.kind === 'multipart') deleteHeader(headers, 'Content-Type');
  return { method: action.method, url, headers, body };
}
