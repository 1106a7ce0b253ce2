import type { z } from 'zod';
import { manifestAdvisories } from './advisories.js';
import { compatibilityDiagnostics, type HostFacts } from './compatibility.js';
import { crossFieldFindings } from './cross-field.js';
import {
  MANIFEST_DIAGNOSTICS,
  describeValue,
  formatDiagnosticMessage,
  isManifestDiagnosticCode,
  manifestDiagnostic,
  quoted,
  type ManifestDiagnostic,
  type ManifestDiagnosticCode,
} from './diagnostics.js';
import { ManifestShapeSchema, type Manifest } from './schema.js';
import { entryLocationDiagnostic, type EntryLocation } from './entry-location.js';

export type ValidateManifestOptions = HostFacts & {
  /** Where the manifest sits: when given, `entry` must resolve inside its folder or the host package (the loader's rule). */
  location?: EntryLocation;
};

export interface ManifestValidation {
  /** Set only when no diagnostic is an error. */
  manifest?: Manifest;
  diagnostics: ManifestDiagnostic[];
}

/**
 * Checks a parsed manifest against the schema and against the running host. Never throws:
 * every problem, including a crash of the validator itself, comes back as a diagnostic.
 */
export function validateManifest(raw: unknown, opts: ValidateManifestOptions): ManifestValidation {
  try {
    const diagnostics: ManifestDiagnostic[] = [];
    const parsed = ManifestShapeSchema.safeParse(raw);
    if (!parsed.success) for (const issue of parsed.error.issues) diagnostics.push(...diagnosticsOfIssue(issue, raw));
    for (const finding of crossFieldFindings(raw)) diagnostics.push(manifestDiagnostic(finding.code, finding.path.join('.'), ...finding.args));
    diagnostics.push(...compatibilityDiagnostics(raw, opts));
    const entry = parsed.success && opts.location && 'entry' in parsed.data ? parsed.data.entry : undefined;
    const outside = typeof entry === 'string' ? entryLocationDiagnostic(entry, opts.location!) : undefined;
    if (outside) diagnostics.push(outside);
    if (!parsed.success || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
    diagnostics.push(...manifestAdvisories(parsed.data));
    return { manifest: parsed.data, diagnostics };
  } catch (error) {
    return { diagnostics: [manifestDiagnostic('invalid-manifest', '', errorText(error))] };
  }
}

/** Parses manifest JSON text (a leading BOM is allowed), then validates it. Never throws. */
export function parseManifestText(text: string, opts: ValidateManifestOptions): ManifestValidation {
  let raw: unknown;
  try {
    raw = JSON.parse(String(text).replace(/^\uFEFF/, ''));
  } catch (error) {
    return { diagnostics: [manifestDiagnostic('invalid-json', '', errorText(error))] };
  }
  return validateManifest(raw, opts);
}

/** Fields whose every failure has a code of its own, whatever zod found wrong. */
const FIELD_CODES: Record<string, ManifestDiagnosticCode> = {
  manifestVersion: 'unsupported-manifest-version',
  id: 'invalid-id',
  version: 'invalid-semver',
  host: 'invalid-range',
};

function diagnosticsOfIssue(issue: z.core.$ZodIssue, raw: unknown): ManifestDiagnostic[] {
  const path = issue.path.map(String);
  const at = path.join('.');
  const diagnostic = (code: ManifestDiagnosticCode, message: string): ManifestDiagnostic => ({
    severity: MANIFEST_DIAGNOSTICS[code].severity,
    code,
    path: at,
    message,
  });

  if (issue.code === 'custom' && isManifestDiagnosticCode(issue.params?.diagnostic)) {
    return [diagnostic(issue.params.diagnostic, issue.message)];
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => manifestDiagnostic('unknown-key', [...path, key].join('.'), key));
  }
  const located = locate(raw, issue.path);
  if (path.length > 0 && located.parentIsObject && located.value === undefined) {
    return [manifestDiagnostic('missing-field', at, path[path.length - 1])];
  }
  const fieldCode = path.length === 1 ? FIELD_CODES[path[0]!] : undefined;
  if (fieldCode) return [diagnostic(fieldCode, formatDiagnosticMessage(fieldCode, [quoted(located.value)]))];
  if (issue.code === 'invalid_value' && path.length === 3 && path[0] === 'provides' && path[2] === 'kind') {
    return [diagnostic('unknown-kind', issue.message)];
  }
  if (issue.code === 'invalid_key') {
    return [diagnostic('invalid-field', `key ${quoted(path[path.length - 1])}: ${issue.issues[0]?.message ?? issue.message}`)];
  }
  if (issue.code === 'invalid_type' && path.length === 0) {
    return [diagnostic('invalid-field', `a manifest is a JSON object, not ${kindOf(raw)}`)];
  }
  return [diagnostic('invalid-field', issue.message)];
}

/** The value at a zod path of the raw input, and whether its parent is an object. */
function locate(raw: unknown, path: readonly PropertyKey[]): { value: unknown; parentIsObject: boolean } {
  let parent: unknown;
  let value: unknown = raw;
  for (const key of path) {
    parent = value;
    if (typeof value !== 'object' || value === null) return { value: undefined, parentIsObject: false };
    value = Object.hasOwn(value, key) ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return { value, parentIsObject: typeof parent === 'object' && parent !== null && !Array.isArray(parent) };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return error.message;
  } catch {
    // an exotic thrown value; describe it below
  }
  return describeValue(error);
}
