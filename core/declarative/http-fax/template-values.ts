import { SECRET_MASK } from '../../sdk/index.js';
import type { TemplateLookup } from '../template/template-render.js';

/** The per-call values a template of the `http` block can name. */
export interface CallValues {
  to?: string;
  from?: string;
  document_url?: string;
  job_id?: string;
  provider_sid?: string;
  /** Only in `send`, and only when the block declares a `callback`. */
  callback_url?: string;
}

/** Everything a template can read: the call's values and the plugin's settings. */
export interface TemplateValues {
  call: CallValues;
  settings: Readonly<Record<string, unknown>>;
  /** Names of the secret settings: their values are masked in dry runs and never put in messages. */
  secretFields: ReadonlySet<string>;
}

/** The setting that fills `{{ from }}` when the manifest declares it. */
export const FROM_SETTING = 'from';

/** Builds the values of one call; `from` comes from the `from` setting when there is one. */
export function templateValues(settings: Readonly<Record<string, unknown>>, secretFields: Iterable<string>, call: Omit<CallValues, 'from'>): TemplateValues {
  const from = settings[FROM_SETTING];
  return {
    call: { ...call, ...(typeof from === 'string' && from !== '' ? { from } : {}) },
    settings,
    secretFields: new Set(secretFields),
  };
}

/** The same values with every secret setting replaced by the mask, for showing requests. */
export function maskedValues(values: TemplateValues): TemplateValues {
  const settings: Record<string, unknown> = { ...values.settings };
  for (const field of values.secretFields) settings[field] = SECRET_MASK;
  return { ...values, settings };
}

/** The value a placeholder expression names; undefined when unset. */
export function lookup(values: TemplateValues, expression: string): unknown {
  const [root, field] = expression.split('.') as [string, string | undefined];
  if (root === 'settings' || root === 'secrets') {
    return field !== undefined && Object.hasOwn(values.settings, field) ? values.settings[field] : undefined;
  }
  return Object.hasOwn(values.call, root) ? values.call[root as keyof CallValues] : undefined;
}

/** The values as the template renderer reads them. */
export function lookupIn(values: TemplateValues): TemplateLookup {
  return (expression) => lookup(values, expression);
}
