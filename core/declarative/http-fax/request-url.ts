import type { HttpAction } from '../../manifest/index.js';
import { RequestRenderError, asText, isUnsetSole, renderTemplate, renderUrlText, urlComponent } from '../template/template-render.js';
import { lookupIn, type TemplateValues } from './template-values.js';

const DOT_SEGMENTS = new Set(['.', '..', '%2e', '.%2e', '%2e.', '%2e%2e']);

/** A query parameter `name=value`, both percent-encoded as components. */
function queryPair(name: string, value: string): string {
  const where = `query parameter "${name}"`;
  return `${urlComponent(name, where)}=${urlComponent(value, where)}`;
}

/** The URL of an action: the template, its query parameters and an api_key_query credential. */
export function renderUrl(action: HttpAction, values: TemplateValues): URL {
  const find = lookupIn(values);
  const rendered = renderUrlText(action.url, find).split('#')[0]!;
  const pairs: string[] = [];
  for (const [name, template] of Object.entries(action.query ?? {})) {
    if (!isUnsetSole(template, find)) pairs.push(queryPair(name, renderTemplate(template, find, asText)));
  }
  const auth = action.auth;
  if (auth?.kind === 'api_key_query') pairs.push(queryPair(auth.param, renderTemplate(auth.value, find, asText)));
  const text = pairs.length ? `${rendered}${rendered.includes('?') ? '&' : '?'}${pairs.join('&')}` : rendered;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RequestRenderError('url: the rendered URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RequestRenderError('url: only http and https URLs are allowed');
  if (url.username || url.password) throw new RequestRenderError('url: credentials in the URL are not allowed; use "auth"');
  const rawPath = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(text)?.[1] ?? '';
  if (rawPath.split('/').some((segment) => DOT_SEGMENTS.has(segment.toLowerCase()))) {
    throw new RequestRenderError('url: a value renders a "." or ".." path segment, which would change the path');
  }
  return url;
}
