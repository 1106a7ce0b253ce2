import type { ConfigRegistry, ConfigValues } from '../config/registry.js';
import { envNameOf } from '../config/sections.js';
import { SECRET_MASK } from '../../../core/sdk/settings.js';
import { maskUrlCredentials } from '../../../core/config/url-credentials.js';

/** The exact confirmation `?reveal=true` needs, so secrets never leave by a stray flag. */
export const REVEAL_CONFIRMATION = 'I understand';

/**
 * The effective settings as an env file: every key not at its default (or every key with
 * `all`), each with its source as a comment. Secrets show `***` unless `reveal`.
 */
export function renderEnvSnippet(config: ConfigRegistry<ConfigValues>, options: { reveal: boolean; all: boolean; now?: Date }): string {
  const { config: values, source } = config.effective();
  const lines = [`# Switchboard settings, exported ${(options.now ?? new Date()).toISOString()}${options.reveal ? ' (secrets in clear)' : ' (secrets masked)'}`];
  const { model } = config;
  for (const key of model.keys) {
    const value = values[key];
    if (value === undefined) continue;
    if (!options.all && source[key] === 'default') continue;
    const text = String(value);
    const shown = options.reveal ? text : model.secretKeys.has(key) ? SECRET_MASK : maskUrlCredentials(text);
    lines.push(`# source: ${source[key]}`, `${envNameOf(key)}=${quote(shown)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** dotenv quoting: plain when safe, else double quotes with escapes. */
function quote(value: string): string {
  if (/^[A-Za-z0-9_./:@+,=*-]*$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
