/**
 * The one plugin-id rule: 1-64 characters of a-z, 0-9 and "-", starting with a letter or digit.
 * Manifests, the kernel, HTTP path parameters, the registry catalogue and the host's
 * configuration (FAX_BACKEND, STORAGE_BACKEND, ...) all check ids with it.
 */
export const PLUGIN_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** What the rule says, for error messages. */
export const PLUGIN_ID_RULE = 'plugin ids are 1-64 characters of a-z, 0-9 and "-", starting with a letter or digit';

export function isPluginId(value: unknown): value is string {
  return typeof value === 'string' && PLUGIN_ID_PATTERN.test(value);
}
