import type { HttpAction } from '../../manifest/index.js';
import { RequestRenderError, isUnsetSole, renderTemplate } from '../template/template-render.js';
import { lookupIn, type TemplateValues } from './template-values.js';

// CR, LF, NUL and the other controls (tab aside) would split or end a header line.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
// fetch sends header values as bytes: text beyond Latin-1 cannot be sent as it is.
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * A placeholder's text checked for a header value: refused rather than sent altered. Basic
 * credentials are base64-encoded, so any Unicode text fits there (`bytesOnly` false).
 */
function headerText(where: string, bytesOnly = true) {
  return (text: string, expression: string): string => {
    if (CONTROL.test(text)) {
      throw new RequestRenderError(`${where}: the value of {{ ${expression} }} contains CR, LF, NUL or another control character; nothing was sent`, expression);
    }
    if (bytesOnly && BEYOND_LATIN1.test(text)) throw new RequestRenderError(`${where}: the value of {{ ${expression} }} is not Latin-1 text`, expression);
    return text;
  };
}

/** The headers of an action: its templates, then the auth credential. Content-Type comes with the body. */
export function renderHeaders(action: HttpAction, values: TemplateValues): Record<string, string> {
  const headers: Record<string, string> = {};
  const find = lookupIn(values);
  for (const [name, template] of Object.entries(action.headers ?? {})) {
    if (isUnsetSole(template, find)) continue;
    headers[name] = renderTemplate(template, find, headerText(`header "${name}"`));
  }
  const auth = action.auth ?? { kind: 'none' as const };
  switch (auth.kind) {
    case 'basic': {
      const username = renderTemplate(auth.username, find, headerText('basic auth username', false));
      if (username.includes(':')) throw new RequestRenderError('basic auth username must not contain ":"');
      const password = renderTemplate(auth.password, find, headerText('basic auth password', false));
      setHeader(headers, 'Authorization', `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`);
      break;
    }
    case 'bearer':
      setHeader(headers, 'Authorization', `Bearer ${renderTemplate(auth.token, find, headerText('bearer token'))}`);
      break;
    case 'api_key_header':
      setHeader(headers, auth.header, renderTemplate(auth.value, find, headerText(`header "${auth.header}"`)));
      break;
    case 'api_key_query':
    case 'none':
      break;
  }
  // Placeholder values are checked as they are rendered; the manifest's literal text is checked
  // here, so a bad header fails the call before anything is sent (never after, as "uncertain").
  for (const [name, value] of Object.entries(headers)) {
    if (/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(value)) throw new RequestRenderError(`header "${name}" holds a control character or a character outside Latin-1`);
  }
  return headers;
}

/** Sets a header, replacing one of the same name in any letter case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  deleteHeader(headers, name);
  headers[name] = value;
}

export function deleteHeader(headers: Record<string, string>, name: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
}

export function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());
}
