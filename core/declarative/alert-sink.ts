import { ConfigError, definePlugin, secretFields, type Alert, type AlertDelivery, type PluginDefinition } from '../sdk/index.js';
import { envMapFromManifest, parseTemplate, settingsSchemaFromManifest, type Manifest } from '../manifest/index.js';
import type { JsonTemplate } from '../manifest/schema.js';

type Values = Record<string, unknown>;

/** The value a placeholder names: `alert.title`, `alert.context.rate`, `settings.url`. */
function lookup(values: Values, expression: string): unknown {
  let current: unknown = values;
  for (const part of expression.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A template string with its placeholders filled in; objects are written as JSON, missing values as "". */
export function fillTemplate(template: string, values: Values): string {
  const parsed = parseTemplate(template);
  if (!parsed.ok) throw new Error(parsed.reason);
  return template.replace(/\{\{([^}]*)\}\}/g, (_m, inner: string) => {
    const value = lookup(values, inner.trim());
    if (value === undefined || value === null) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

function fillJson(template: JsonTemplate, values: Values): unknown {
  if (typeof template === 'string') {
    // A string that is one placeholder keeps the value's JSON type (context objects, numbers).
    const whole = /^\{\{\s*([^}]*?)\s*\}\}$/.exec(template);
    if (whole && parseTemplate(template).ok) {
      const value = lookup(values, whole[1]!);
      return value === undefined ? null : value;
    }
    return fillTemplate(template, values);
  }
  if (Array.isArray(template)) return template.map((t) => fillJson(t, values));
  if (template && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillJson(v, values)]));
  return template;
}

/**
 * The runtime of the manifest `alert` block: an alert-sink whose receiver is described by a URL,
 * headers and a JSON body template over `alert.*` and the plugin's settings. Delivery is a POST
 * through the plugin's egress-checked client: 2xx delivered, 4xx (but 408 and 429) refused for
 * good, anything else (5xx, no answer) transient.
 */
export function createAlertSinkPlugin(manifest: Manifest): PluginDefinition {
  const block = manifest.alert;
  if (!block) throw new TypeError(`manifest ${manifest.id} has no "alert" block`);
  const settings = settingsSchemaFromManifest(manifest.settings);
  const secrets = new Set(secretFields(settings));
  return definePlugin({
    settings,
    env: envMapFromManifest(manifest.settings),
    start(ctx) {
      const all = ctx.settings as Record<string, unknown>;
      const values = (alert: Alert): Values => ({
        alert: { ...alert, context: alert.context ?? {} },
        settings: Object.fromEntries(Object.entries(all).filter(([k]) => !secrets.has(k))),
        secrets: Object.fromEntries(Object.entries(all).filter(([k]) => secrets.has(k))),
      });
      const probe = fillTemplate(block.url, values({ id: 'probe', type: 'probe', severity: 'info', status: 'firing', title: 'probe', startsAt: new Date(0).toISOString() }));
      let target: URL;
      try {
        target = new URL(probe);
      } catch {
        throw new ConfigError(`${manifest.id}: the receiver URL is not set or not a URL; set the settings it names`);
      }
      if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new ConfigError(`${manifest.id}: the receiver URL must be http(s)`);
      const sink = {
        async deliver(alert: Alert, signal?: AbortSignal): Promise<AlertDelivery> {
          const v = values(alert);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          for (const [name, template] of Object.entries(block.headers ?? {})) headers[name] = fillTemplate(template, v);
          if (alert.eventId) headers['idempotency-key'] = alert.eventId;
          try {
            const res = await ctx.http.fetch(fillTemplate(block.url, v), { method: 'POST', headers, body: JSON.stringify(fillJson(block.body, v)), ...(signal ? { signal } : {}), maxRedirects: 0 });
            await res.body?.cancel().catch(() => {});
            if (res.ok) return { ok: true };
            const permanent = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
            return { ok: false, permanent, detail: `receiver answered HTTP ${res.status}` };
          } catch (err) {
            return { ok: false, detail: `${(err as Error)?.name ?? 'error'}: ${(err as Error)?.message ?? err}` };
          }
        },
      };
      return { providers: { 'alert-sink': sink }, health: () => ({ ok: true, info: { receiver: `${target.protocol}//${target.host}/***` } }) };
    },
  });
}
