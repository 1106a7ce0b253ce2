import type { HttpBody } from '../../manifest/index.js';
import { renderFields, renderForm, renderJson } from '../template/template-render.js';
import { lookupIn, type TemplateValues } from './template-values.js';

/** A body rendered from its templates, before the document bytes are attached. */
export type RenderedBody =
  | { kind: 'none' }
  | { kind: 'json'; text: string }
  | { kind: 'form'; params: URLSearchParams }
  | { kind: 'multipart'; fields: Array<[string, string]>; fileField: string };

export function renderBody(body: HttpBody | undefined, values: TemplateValues): RenderedBody {
  switch (body?.kind) {
    case undefined:
    case 'none':
      return { kind: 'none' };
    case 'json':
      return { kind: 'json', text: renderJson(body.template, lookupIn(values)) };
    case 'form':
      return { kind: 'form', params: renderForm(body.fields, lookupIn(values)) };
    case 'multipart':
      return { kind: 'multipart', fields: renderFields(body.fields, lookupIn(values)), fileField: body.file_field };
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
