import type { HttpAction } from '../../manifest/index.js';
import { RequestRenderError, isUnsetSole, renderTemplate } from './template-text.js';
import type { TemplateValues } from './template-values.js';

// A base URL put at the start of a URL template: scheme, host, optional path; nothing else.
const BASE_URL = /^https?:\/\/[^\s/?#@\\]+(?:\/[^\s?#\\]*)?$/i;
// A host put inside the authority of a URL template (`https://{{ settings.space }}/api`).
const HOST_TEXT = /^[A-Za-z0-9.-]+(?::\d{1,5})?$/;
const IN_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*$/i;
const DOT_SEGMENTS = new Set(['.', '..', '%2e', '.%2e', '%2e.', '%2e%2e']);

function component(text: string, where: string, expression?: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    throw new RequestRenderError(`${where}: a value is not valid Unicode text`, expression);
  }
}

/**
 * Where a placeholder lands in a URL decides its escaping: first in the template it is the
 * base URL (checked, not escaped), inside the authority a host name (checked), anywhere
 * after that a path or query component (percent-encoded), so no value changes the structure.
 */
function urlEscape(text: string, expression: string, before: string): string {
  if (before === '') {
    if (!BASE_URL.test(text)) {
      throw new RequestRenderError(`url: {{ ${expression} }} must be an http(s) base URL without credentials, query or fragment`, expression);
    }
    return text.replace(/\/+$/, '');
  }
  if (IN_AUTHORITY.test(before)) {
    if (!HOST_TEXT.test(text)) throw new RequestRenderError(`url: {{ ${expression} }} must be a host name`, expression);
    return text;
  }
  return component(text, 'url', expression);
}

/** A query parameter `name=value`, both percent-encoded as components. */
function queryPair(name: string, value: string): string {
  const where = `query parameter "${name}"`;
  return `${component(name, where)}=${component(value, where)}`;
}

const raw = (text: string) => text;

/** The URL of an action: the template, its query parameters and an api_key_query credential. */
export function renderUrl(action: HttpAction, values: TemplateValues): URL {
  const rendered = renderTemplate(action.url, values, urlEscape).split('#')[0]!;
  const pairs: string[] = [];
  for (const [name, template] of Object.entries(action.query ?? {})) {
    if (!isUnsetSole(template, values)) pairs.push(queryPair(name, renderTemplate(template, values, raw)));
  }
  const auth = action.auth;
  if (auth?.kind === 'api_key_query') pairs.push(queryPair(auth.param, renderTemplate(auth.value, values, raw)));
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
