import { ALERT_V1_FIELD_NAMES } from '../sdk/contracts/alert-sink-v1.js';

/**
 * Templates of declarative blocks: strings with `{{ name }}` placeholders. This module only
 * parses them and names what they refer to; filling them in is the job of the block's runtime.
 */

export type TemplateScope = 'http' | 'alert';

/** Per-request values a fax `http` block can use, besides `settings.<field>` and `secrets.<field>`. */
export const HTTP_TEMPLATE_ROOTS = ['to', 'from', 'document_url', 'job_id', 'provider_sid', 'callback_url'] as const;

/**
 * Fields of the notice (see the alert-sink contract) an `alert` block can use as
 * `alert.<field>`; `{{ alert }}` alone is the whole notice. A manifest declared `alert-sink@^1`
 * may also use the camelCase names of major 1 (ALERT_V1_FIELD_NAMES), which read the same fields.
 */
export const ALERT_TEMPLATE_FIELDS = ['id', 'event_id', 'type', 'category', 'severity', 'status', 'title', 'starts_at', 'ends_at', 'sent_at', 'labels', 'context'] as const;

/** A template cut into literal text and placeholders. */
export type TemplatePart = { kind: 'text'; text: string } | { kind: 'placeholder'; expression: string };

export type TemplateParse = { ok: true; parts: TemplatePart[]; placeholders: string[] } | { ok: false; reason: string };

const EXPRESSION = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * The one parser of the template syntax, for the validator and every runtime: a template cut
 * into text and placeholder expressions, or why it is malformed (a stray or unclosed brace pair,
 * a placeholder that is not a dotted name).
 */
export function parseTemplate(text: string): TemplateParse {
  const parts: TemplatePart[] = [];
  const placeholders: string[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf('{{', at);
    const strayClose = text.indexOf('}}', at);
    if (open === -1) {
      if (strayClose !== -1) return { ok: false, reason: `"}}" at offset ${strayClose} closes no placeholder` };
      if (at < text.length) parts.push({ kind: 'text', text: text.slice(at) });
      return { ok: true, parts, placeholders };
    }
    if (strayClose !== -1 && strayClose < open) return { ok: false, reason: `"}}" at offset ${strayClose} closes no placeholder` };
    const close = text.indexOf('}}', open + 2);
    if (close === -1) return { ok: false, reason: `"{{" at offset ${open} is never closed` };
    const inner = text.slice(open + 2, close);
    if (inner.includes('{{')) return { ok: false, reason: `"{{" at offset ${open} is never closed` };
    const expression = inner.trim();
    if (!EXPRESSION.test(expression)) {
      return { ok: false, reason: `placeholder {{${inner}}} must be a name like "to" or "settings.api_key"` };
    }
    if (open > at) parts.push({ kind: 'text', text: text.slice(at, open) });
    parts.push({ kind: 'placeholder', expression });
    placeholders.push(expression);
    at = close + 2;
  }
}

/** A placeholder that reads a setting: `settings.x` or `secrets.x`. */
export interface SettingReference {
  expression: string;
  namespace: 'settings' | 'secrets';
  field: string;
}

export type PlaceholderCheck = { ok: true; setting?: SettingReference } | { ok: false; reason: string };

/** Checks that a placeholder expression names something the scope provides (`alertV1`: the manifest is declared `alert-sink@^1`). */
export function checkPlaceholder(expression: string, scope: TemplateScope, options: { alertV1?: boolean } = {}): PlaceholderCheck {
  const parts = expression.split('.');
  const root = parts[0]!;
  if (root === 'settings' || root === 'secrets') {
    if (parts.length !== 2) return { ok: false, reason: `{{ ${expression} }} must be ${root}.<field>` };
    return { ok: true, setting: { expression, namespace: root, field: parts[1]! } };
  }
  if (scope === 'http') {
    if ((HTTP_TEMPLATE_ROOTS as readonly string[]).includes(root) && parts.length === 1) return { ok: true };
    return {
      ok: false,
      reason: `{{ ${expression} }} is not a known value; use one of ${HTTP_TEMPLATE_ROOTS.join(', ')}, settings.<field>, secrets.<field>`,
    };
  }
  if (root === 'alert') {
    const field = parts[1];
    if (parts.length === 1) return { ok: true };
    if (parts.length === 2 && (ALERT_TEMPLATE_FIELDS as readonly string[]).includes(field!)) return { ok: true };
    if (parts.length === 2 && options.alertV1 && Object.hasOwn(ALERT_V1_FIELD_NAMES, field!)) return { ok: true };
    if ((field === 'context' || field === 'labels') && parts.length >= 3) return { ok: true };
  }
  return {
    ok: false,
    reason: `{{ ${expression} }} is not a known value; use alert, alert.<${ALERT_TEMPLATE_FIELDS.join('|')}>, alert.context.<key>, alert.labels.<key>, settings.<field>, secrets.<field>`,
  };
}

/** A template string found in a declarative block, with its path inside the manifest. */
export interface TemplateSite {
  path: (string | number)[];
  text: string;
}

const MAX_JSON_DEPTH = 64;

type Loose = Record<string, unknown>;
const isRecord = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringsOfRecord(value: unknown, path: (string | number)[], out: TemplateSite[]): void {
  if (!isRecord(value)) return;
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out.push({ path: [...path, key], text: v });
}

function stringsOfJson(value: unknown, path: (string | number)[], out: TemplateSite[], depth = 0): void {
  if (depth > MAX_JSON_DEPTH) return;
  if (typeof value === 'string') out.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((v, i) => stringsOfJson(v, [...path, i], out, depth + 1));
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) stringsOfJson(v, [...path, k], out, depth + 1);
}

export const HTTP_ACTION_NAMES = ['send', 'status', 'cancel'] as const;

/**
 * Every template string of an `http` or `alert` block. Works on unvalidated input (it skips
 * what is not shaped right), so template problems are reported alongside shape problems.
 */
export function templateSites(block: unknown, scope: TemplateScope): TemplateSite[] {
  const out: TemplateSite[] = [];
  if (!isRecord(block)) return out;
  const base = [scope];
  if (scope === 'alert') {
    if (typeof block.url === 'string') out.push({ path: [...base, 'url'], text: block.url });
    stringsOfRecord(block.headers, [...base, 'headers'], out);
    stringsOfJson(block.body, [...base, 'body'], out);
    return out;
  }
  const actions = block.actions;
  if (!isRecord(actions)) return out;
  for (const name of HTTP_ACTION_NAMES) {
    const action = actions[name];
    if (!isRecord(action)) continue;
    const at = [...base, 'actions', name];
    if (typeof action.url === 'string') out.push({ path: [...at, 'url'], text: action.url });
    stringsOfRecord(action.headers, [...at, 'headers'], out);
    stringsOfRecord(action.query, [...at, 'query'], out);
    const body = action.body;
    if (isRecord(body)) {
      if (body.kind === 'json') stringsOfJson(body.template, [...at, 'body', 'template'], out);
      if (body.kind === 'form' || body.kind === 'multipart') stringsOfRecord(body.fields, [...at, 'body', 'fields'], out);
    }
    const auth = action.auth;
    if (isRecord(auth)) {
      for (const key of ['username', 'password', 'token', 'value']) {
        if (typeof auth[key] === 'string') out.push({ path: [...at, 'auth', key], text: auth[key] as string });
      }
    }
  }
  return out;
}

/** The URL templates of a block that call out: each action's url, or the alert url. */
export function urlSites(block: unknown, scope: TemplateScope): TemplateSite[] {
  return templateSites(block, scope).filter((site) => site.path[site.path.length - 1] === 'url');
}

export type UrlHost =
  | { kind: 'placeholder' }
  | { kind: 'dynamic-host' }
  | { kind: 'invalid' }
  | { kind: 'literal'; url: URL };

/**
 * What can be known statically of a URL template's host: nothing when the template starts
 * with a placeholder (`{{ settings.base_url }}/faxes`), else the literal scheme and host.
 */
export function urlHostOf(template: string): UrlHost {
  const text = template.trim();
  if (text.startsWith('{{')) return { kind: 'placeholder' };
  const match = /^(https?):\/\/([^/?#]*)/i.exec(text);
  if (!match) return { kind: 'invalid' };
  const authority = match[2]!;
  if (authority.includes('{{')) return { kind: 'dynamic-host' };
  if (authority === '' || authority.includes('@')) return { kind: 'invalid' };
  try {
    return { kind: 'literal', url: new URL(`${match[1]!.toLowerCase()}://${authority}/`) };
  } catch {
    return { kind: 'invalid' };
  }
}
