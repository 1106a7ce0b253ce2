import type { ApiResponse } from '../../../api.js';

/** GET /plugins/{id}/config: the settings schema's fields, the values and where each comes from. */
export type PluginConfig = ApiResponse<'/plugins/{id}/config', 'get'>;
export type Field = PluginConfig['fields'][number];

/** The form's text for a value: what an input shows. */
function asText(f: Field, v: unknown): string {
  if (v === null || v === undefined) return '';
  if (f.type === 'json') return JSON.stringify(v);
  return String(v);
}

export interface Draft {
  enabled: boolean;
  values: Record<string, string | boolean>;
  /** Secrets the operator asked to clear. */
  clear: Record<string, boolean>;
}

export function draftOf(cfg: PluginConfig): Draft {
  const values: Record<string, string | boolean> = {};
  for (const f of cfg.fields) {
    if (f.secret) values[f.name] = '';
    else if (f.type === 'boolean') values[f.name] = cfg.settings[f.name] === true;
    else values[f.name] = asText(f, cfg.settings[f.name]);
  }
  return { enabled: cfg.enabled, values, clear: {} };
}

/** Only what the operator changed: untouched fields keep their source (default, env, store). */
export function changes(cfg: PluginConfig, draft: Draft): { body: { enabled?: boolean; settings: Record<string, unknown> }; problem?: string } {
  const initial = draftOf(cfg);
  const settings: Record<string, unknown> = {};
  for (const f of cfg.fields) {
    if (f.env_only) continue;
    const v = draft.values[f.name];
    if (f.secret) {
      if (draft.clear[f.name]) settings[f.name] = null;
      else if (typeof v === 'string' && v !== '') settings[f.name] = v;
      continue;
    }
    if (v === initial.values[f.name]) continue;
    if (f.type === 'boolean') settings[f.name] = v === true;
    else if (v === '') settings[f.name] = null;
    else if (f.type === 'number' || f.type === 'integer') {
      const n = Number(v);
      if (!Number.isFinite(n)) return { body: { settings }, problem: `${f.name}: not a number` };
      settings[f.name] = n;
    } else if (f.type === 'json') {
      try {
        settings[f.name] = JSON.parse(String(v));
      } catch {
        return { body: { settings }, problem: `${f.name}: not valid JSON` };
      }
    } else settings[f.name] = v;
  }
  return { body: { ...(draft.enabled !== cfg.enabled ? { enabled: draft.enabled } : {}), settings } };
}
