import { lookup, textOf, type TemplateValues } from './template-values.js';

/** A template cut into literal text and placeholders (the syntax of core/manifest/templates.ts). */
export type TemplatePart = { kind: 'text'; text: string } | { kind: 'placeholder'; expression: string };

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

export function templateParts(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match.index > at) parts.push({ kind: 'text', text: template.slice(at, match.index) });
    parts.push({ kind: 'placeholder', expression: match[1]! });
    at = match.index + match[0].length;
  }
  if (at < template.length) parts.push({ kind: 'text', text: template.slice(at) });
  return parts;
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
