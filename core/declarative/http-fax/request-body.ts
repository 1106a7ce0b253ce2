import type { HttpBody, JsonTemplate } from '../../manifest/index.js';
import { isUnsetSole, renderTemplate, soleExpression } from './template-text.js';
import { lookup, type TemplateValues } from './template-values.js';

/** A body rendered from its templates, before the document bytes are attached. */
export type RenderedBody =
  | { kind: 'none' }
  | { kind: 'json'; text: string }
  | { kind: 'form'; params: URLSearchParams }
  | { kind: 'multipart'; fields: Array<[string, string]>; fileField: string };

const OMIT = Symbol('omit');
type Built = unknown | typeof OMIT;

const raw = (text: string) => text;

/**
 * A JSON template built as a value, never as text: each rendered string becomes a JSON string
 * and JSON.stringify escapes it. A string that is one placeholder keeps its value's type, and
 * is left out (of an object) or null (in an array) when unset. Keys are literal.
 */
function buildJson(template: JsonTemplate, values: TemplateValues): Built {
  if (typeof template === 'string') {
    const sole = soleExpression(template);
    if (sole === undefined) return renderTemplate(template, values, raw);
    const value = lookup(values, sole);
    if (value === undefined || value === null) return OMIT;
    return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string' ? value : renderTemplate(template, values, raw);
  }
  if (Array.isArray(template)) {
    return template.map((item) => {
      const built = buildJson(item, values);
      return built === OMIT ? null : built;
    });
  }
  if (template !== null && typeof template === 'object') {
    const entries: Array<[string, unknown]> = [];
    for (const [key, item] of Object.entries(template)) {
      const built = buildJson(item, values);
      if (built !== OMIT) entries.push([key, built]);
    }
    // fromEntries defines own properties, so a "__proto__" key stays a plain key.
    return Object.fromEntries(entries);
  }
  return template;
}

function fields(map: Record<string, string>, values: TemplateValues): Array<[string, string]> {
  return Object.entries(map)
    .filter(([, template]) => !isUnsetSole(template, values))
    .map(([name, template]) => [name, renderTemplate(template, values, raw)]);
}

export function renderBody(body: HttpBody | undefined, values: TemplateValues): RenderedBody {
  switch (body?.kind) {
    case undefined:
    case 'none':
      return { kind: 'none' };
    case 'json': {
      const built = buildJson(body.template, values);
      return { kind: 'json', text: JSON.stringify(built === OMIT ? null : built) };
    }
    case 'form':
      return { kind: 'form', params: new URLSearchParams(fields(body.fields, values)) };
    case 'multipart':
      return { kind: 'multipart', fields: fields(body.fields, values), fileField: body.file_field };
  }
}

/** The name the PDF part of a multipart body carries. */
export const DOCUMENT_FILENAME = 'document.pdf';

/** What fetch sends: the document is attached as the file part of a multipart body. */
export function fetchBody(body: RenderedBody, document: Buffer | undefined): string | URLSearchParams | FormData | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return body.text;
    case 'form':
      return body.params;
    case 'multipart': {
      const form = new FormData();
      for (const [name, value] of body.fields) form.append(name, value);
      if (document) form.append(body.fileField, new Blob([new Uint8Array(document)], { type: 'application/pdf' }), DOCUMENT_FILENAME);
      return form;
    }
  }
}
