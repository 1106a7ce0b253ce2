import { parseTemplate, type JsonTemplate, type TemplatePart } from '../../manifest/index.js';

/**
 * The one renderer of manifest templates, for every declarative runtime (the http fax block and
 * the alert block). A runtime says what a placeholder names (its lookup); where the text lands
 * decides the escaping: a JSON value, a form field, a URL, or plain text a caller checks.
 */

/** The value a placeholder expression names in a runtime's values; undefined when unset. */
export type TemplateLookup = (expression: string) => unknown;

/** How a placeholder's text is written where it lands; `before` is the text rendered so far. */
export type TemplateEscape = (text: string, expression: string, before: string) => string;

/**
 * A template that cannot be rendered safely: the message names the place and the placeholder,
 * never the value (it may be a secret or a phone number).
 */
export class RequestRenderError extends Error {
  constructor(
    message: string,
    /** The placeholder whose value was refused, when one was. */
    readonly expression?: string,
  ) {
    super(message);
    this.name = 'RequestRenderError';
  }
}

/**
 * A template cut into text and placeholders by the manifest's own parser, so the runtime reads
 * exactly what the validator accepted. A template the validator refuses cannot be rendered.
 */
export function templateParts(template: string): TemplatePart[] {
  const parsed = parseTemplate(template);
  if (!parsed.ok) throw new RequestRenderError(`invalid template: ${parsed.reason}`);
  return parsed.parts;
}

/** The expression when the whole template is one placeholder (`"{{ to }}"`), else undefined. */
export function soleExpression(template: string): string | undefined {
  const parts = templateParts(template);
  const only = parts.length === 1 ? parts[0] : undefined;
  return only?.kind === 'placeholder' ? only.expression : undefined;
}

/** A value as text: unset is empty, numbers and booleans print as in JSON, objects as JSON. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The text context: each placeholder's text as it is (the caller checks it, as headers do). */
export const asText: TemplateEscape = (text) => text;

/** Renders a template, passing each placeholder's text through `escape` for where it lands. */
export function renderTemplate(template: string, lookup: TemplateLookup, escape: TemplateEscape): string {
  let out = '';
  for (const part of templateParts(template)) {
    out += part.kind === 'text' ? part.text : escape(textOf(lookup(part.expression)), part.expression, out);
  }
  return out;
}

/** True when a template is one placeholder naming an unset value: its field is left out. */
export function isUnsetSole(template: string, lookup: TemplateLookup): boolean {
  const sole = soleExpression(template);
  if (sole === undefined) return false;
  const value = lookup(sole);
  return value === undefined || value === null;
}

const OMIT = Symbol('omit');

/**
 * The JSON context. The template is built as a value, never as text: each rendered string
 * becomes a JSON string and JSON.stringify escapes it. A string that is one placeholder keeps
 * its value's JSON type (numbers, objects); unset, it is left out of an object and null in an
 * array. Keys are literal.
 */
export function renderJson(template: JsonTemplate, lookup: TemplateLookup): string {
  const built = buildJson(template, lookup);
  return JSON.stringify(built === OMIT ? null : built);
}

function buildJson(template: JsonTemplate, lookup: TemplateLookup): unknown {
  if (typeof template === 'string') {
    const sole = soleExpression(template);
    if (sole === undefined) return renderTemplate(template, lookup, asText);
    const value = lookup(sole);
    return value === undefined || value === null ? OMIT : value;
  }
  if (Array.isArray(template)) {
    return template.map((item) => {
      const built = buildJson(item, lookup);
      return built === OMIT ? null : built;
    });
  }
  if (template !== null && typeof template === 'object') {
    const entries: Array<[string, unknown]> = [];
    for (const [key, item] of Object.entries(template)) {
      const built = buildJson(item, lookup);
      if (built !== OMIT) entries.push([key, built]);
    }
    // fromEntries defines own properties, so a "__proto__" key stays a plain key.
    return Object.fromEntries(entries);
  }
  return template;
}

/** Named fields (form or multipart), rendered as text; a field that is one unset placeholder is left out. */
export function renderFields(map: Record<string, string>, lookup: TemplateLookup): Array<[string, string]> {
  return Object.entries(map)
    .filter(([, template]) => !isUnsetSole(template, lookup))
    .map(([name, template]) => [name, renderTemplate(template, lookup, asText)]);
}

/** The form context: fields as application/x-www-form-urlencoded, names and values encoded. */
export function renderForm(map: Record<string, string>, lookup: TemplateLookup): URLSearchParams {
  return new URLSearchParams(renderFields(map, lookup));
}

// A base URL put at the start of a URL template: scheme, host, optional path; nothing else.
const BASE_URL = /^https?:\/\/[^\s/?#@\\]+(?:\/[^\s?#\\]*)?$/i;
// A host put inside the authority of a URL template (`https://{{ settings.space }}/api`).
const HOST_TEXT = /^[A-Za-z0-9.-]+(?::\d{1,5})?$/;
const IN_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*$/i;

/** A URL path or query component, percent-encoded so no value adds a `/`, `?`, `&`, `=` or `#`. */
export function urlComponent(text: string, where: string, expression?: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    throw new RequestRenderError(`${where}: a value is not valid Unicode text`, expression);
  }
}

/**
 * The URL context: where a placeholder lands decides its escaping. First in the template it is
 * the base URL (checked, not escaped), inside the authority a host name (checked), anywhere
 * after that a path or query component (percent-encoded), so no value changes the structure.
 */
export const urlEscape: TemplateEscape = (text, expression, before) => {
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
  return urlComponent(text, 'url', expression);
};

/**
 * A URL template rendered in the URL context. With `whole`, a template that is one placeholder
 * names a complete URL (an alert receiver's, query included), taken as it is.
 */
export function renderUrlText(template: string, lookup: TemplateLookup, options: { whole?: boolean } = {}): string {
  const sole = options.whole ? soleExpression(template) : undefined;
  return sole === undefined ? renderTemplate(template, lookup, urlEscape) : textOf(lookup(sole));
}
