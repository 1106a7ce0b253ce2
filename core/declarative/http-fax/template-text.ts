import { parseTemplate, type TemplatePart } from '../../manifest/index.js';
import { lookup, textOf, type TemplateValues } from './template-values.js';

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
 * Renders a template, passing each placeholder's text through `escape` for where it lands.
 * `escape` sees the text rendered so far, for context-dependent rules (URLs).
 */
export function renderTemplate(
  template: string,
  values: TemplateValues,
  escape: (text: string, expression: string, before: string) => string,
): string {
  let out = '';
  for (const part of templateParts(template)) {
    out += part.kind === 'text' ? part.text : escape(textOf(lookup(values, part.expression)), part.expression, out);
  }
  return out;
}

/** True when a template is one placeholder naming an unset value: its field is left out. */
export function isUnsetSole(template: string, values: TemplateValues): boolean {
  const sole = soleExpression(template);
  if (sole === undefined) return false;
  const value = lookup(values, sole);
  return value === undefined || value === null;
}
