/** One finding about a manifest. `path` is dotted (`provides.0.contract`), '' for the whole file. */
export interface ManifestDiagnostic {
  severity: 'error' | 'warning';
  code: string;
  path: string;
  message: string;
}

interface DiagnosticDefinition {
  severity: 'error' | 'warning';
  /** `%s` placeholders are filled, in order, by the arguments of manifestDiagnostic(). */
  message: string;
}

/**
 * Every diagnostic the manifest validator can report. Codes are stable: tools and the
 * /plugins surface match on them, so a code is never renamed or reused for another rule.
 */
export const MANIFEST_DIAGNOSTICS = {
  'invalid-json': { severity: 'error', message: 'the file is not valid JSON: %s' },
  'unreadable-file': { severity: 'error', message: 'the file could not be read: %s' },
  'invalid-manifest': { severity: 'error', message: 'the manifest could not be validated: %s' },
  'unsupported-manifest-version': { severity: 'error', message: 'manifestVersion must be 1, got %s' },
  'unknown-key': { severity: 'error', message: 'unknown key "%s"' },
  'missing-field': { severity: 'error', message: 'required field "%s" is missing' },
  'invalid-field': { severity: 'error', message: '%s' },
  'invalid-id': { severity: 'error', message: 'id must be 1-64 characters of a-z, 0-9 and "-", starting with a letter or digit; got %s' },
  'invalid-semver': { severity: 'error', message: '%s is not a valid semantic version (x.y.z)' },
  'invalid-range': { severity: 'error', message: '%s is not a valid semver range' },
  'host-range-unpinned': { severity: 'error', message: 'host range %s must pin one major version (e.g. "^1" or ">=1.2 <2")' },
  'host-range-unmet': { severity: 'error', message: 'this host is version %s, which does not satisfy the manifest\'s host range %s' },
  'invalid-contract': { severity: 'error', message: 'contract must be "<kind>@<semver range>" (e.g. "fax@^1"), got %s' },
  'unknown-kind': { severity: 'error', message: 'unknown provider kind %s (known: %s)' },
  'contract-kind-mismatch': { severity: 'error', message: 'contract %s names kind "%s" but the entry provides kind "%s"' },
  'contract-range-unmet': { severity: 'error', message: 'this host implements %s contract %s, which does not satisfy %s' },
  'contract-range-unpinned': { severity: 'warning', message: 'contract range %s accepts more than one major version; a new major may break this plugin' },
  'duplicate-kind': { severity: 'error', message: 'kind "%s" is provided more than once' },
  'entry-and-declarative': { severity: 'error', message: 'a manifest has either "entry" or a declarative block (%s), not both' },
  'entry-or-declarative-missing': { severity: 'error', message: 'a manifest needs "entry" (a code module) or a declarative block ("http" or "alert")' },
  'multiple-declarative': { severity: 'error', message: 'a manifest has at most one declarative block; found %s' },
  'invalid-entry': { severity: 'error', message: 'entry must be a relative path (no absolute path or URL); got %s' },
  'unsupported-block': { severity: 'error', message: 'the "%s" block is not supported by this host (declarative blocks with a runtime here: %s)' },
  'entry-outside-folder': { severity: 'error', message: 'entry %s resolves to %s, outside the plugin folder %s (symlinks may not leave it)' },
  'bundled-sdk': { severity: 'warning', message: 'the plugin folder bundles its own switchboard %s (%s); it is not used: the plugin gets the host\'s switchboard/sdk' },
  'declarative-kind-mismatch': { severity: 'error', message: 'a manifest with an "%s" block provides only kind "%s", not "%s"' },
  'invalid-template': { severity: 'error', message: 'invalid template: %s' },
  'template-unknown-setting': { severity: 'error', message: 'template placeholder {{ %s }} refers to setting "%s", which is not declared in "settings"' },
  'template-not-secret': { severity: 'error', message: 'template placeholder {{ %s }} refers to setting "%s", which is not marked "secret": true' },
  'template-secret-via-settings': { severity: 'warning', message: 'template placeholder {{ %s }} reads a secret setting; write {{ secrets.%s }} so it is masked wherever it appears' },
  'invalid-url': { severity: 'error', message: 'url must be an absolute http(s) URL without credentials, or start with a placeholder; got %s' },
  'egress-required': { severity: 'error', message: 'a manifest with an "%s" block must list the hosts it calls in "egress"' },
  'egress-host-missing': { severity: 'error', message: 'host %s of this URL is not allowed by "egress" (%s)' },
  'egress-host-unchecked': { severity: 'warning', message: 'the host of this URL is built from placeholders, so it can only be checked against "egress" at run time' },
  'invalid-egress': { severity: 'error', message: 'egress entries are a hostname, "host:port" or "*.domain", without scheme or path; got %s' },
  'callback-secret-unknown': { severity: 'error', message: 'the callback signature is keyed with setting "%s", which is not declared in "settings"' },
  'callback-secret-not-secret': { severity: 'error', message: 'the callback signature is keyed with setting "%s", which is not marked "secret": true' },
  'invalid-response-path': { severity: 'error', message: 'response path must look like "data.id" or "faxes[0].status"; got %s' },
  'setting-default-invalid': { severity: 'error', message: 'default %s does not fit the field (%s)' },
  'setting-enum-invalid': { severity: 'error', message: '%s' },
  'secret-default': { severity: 'warning', message: 'secret setting "%s" has a default value in the manifest; secrets belong in the environment or the config store' },
  'invalid-alias': { severity: 'error', message: 'an alias follows the plugin id rule (1-64 characters of a-z, 0-9 and "-"); got %s' },
  'alias-taken': { severity: 'error', message: 'alias %s is already the id or an alias of plugin "%s"' },
  'invalid-webhook-alias': { severity: 'error', message: '%s' },
  'webhook-alias-taken': { severity: 'error', message: 'webhook alias path %s is already claimed by plugin "%s"' },
  'deprecated-plugin': { severity: 'warning', message: 'this plugin is marked deprecated' },
} as const satisfies Record<string, DiagnosticDefinition>;

export type ManifestDiagnosticCode = keyof typeof MANIFEST_DIAGNOSTICS;

/** Fills `%s` placeholders in order; never throws, whatever the arguments are. */
export function formatDiagnosticMessage(code: ManifestDiagnosticCode, args: readonly unknown[]): string {
  let i = 0;
  return MANIFEST_DIAGNOSTICS[code].message.replace(/%s/g, () => describeValue(args[i++]));
}

/** Builds the diagnostic of a catalogue code. */
export function manifestDiagnostic(code: ManifestDiagnosticCode, path: string, ...args: unknown[]): ManifestDiagnostic {
  return { severity: MANIFEST_DIAGNOSTICS[code].severity, code, path, message: formatDiagnosticMessage(code, args) };
}

export function isManifestDiagnosticCode(code: unknown): code is ManifestDiagnosticCode {
  return typeof code === 'string' && Object.hasOwn(MANIFEST_DIAGNOSTICS, code);
}

/** Like describeValue, but strings come out quoted: for "got ..." parts of messages. */
export function quoted(value: unknown): string {
  return typeof value === 'string' ? describeValue(JSON.stringify(value)) : describeValue(value);
}

/** A short, safe rendering of any value for a message (strings as-is, others as JSON). */
export function describeValue(value: unknown): string {
  try {
    if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 200)}...` : value;
    if (value === undefined) return 'undefined';
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'function' || typeof value === 'symbol') return typeof value;
    const json = JSON.stringify(value);
    if (json === undefined) return typeof value;
    return json.length > 200 ? `${json.slice(0, 200)}...` : json;
  } catch {
    return typeof value;
  }
}
