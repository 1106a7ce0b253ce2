import { z } from 'zod';
import { PROVIDER_KINDS } from '../sdk/contracts/index.js';
import { formatDiagnosticMessage, quoted, type ManifestDiagnosticCode } from './diagnostics.js';
import { isSemver, pinsMajor, splitContract, validRange } from './ranges.js';
import { crossFieldFindings } from './cross-field.js';
import { responsePathSteps } from './response-path.js';
import { isPluginId } from './plugin-id.js';
import { webhookAliasPathProblem } from './webhook-alias.js';

/** Adds a catalogue diagnostic as a zod issue; validate.ts turns it back into that diagnostic. */
export function flag(
  ctx: { addIssue(issue: z.core.$ZodSuperRefineIssue): void },
  code: ManifestDiagnosticCode,
  path: (string | number)[],
  ...args: unknown[]
): void {
  ctx.addIssue({ code: 'custom', message: formatDiagnosticMessage(code, args), path, params: { diagnostic: code } });
}

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const EGRESS = new RegExp(`^(?:(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])(?::(\\d{1,5}))?$`, 'i');

const Id = z.string().superRefine((id, ctx) => {
  if (!isPluginId(id)) flag(ctx, 'invalid-id', [], quoted(id));
});

const Version = z.string().superRefine((version, ctx) => {
  // semver.valid() also accepts "v1.2.3" and "=1.2.3"; a manifest states the plain form.
  if (!isSemver(version) || version.trim() !== version || /^[v=]/.test(version)) flag(ctx, 'invalid-semver', [], quoted(version));
});

const HostRange = z.string().superRefine((range, ctx) => {
  if (validRange(range) === null) flag(ctx, 'invalid-range', [], quoted(range));
  else if (!pinsMajor(range)) flag(ctx, 'host-range-unpinned', [], quoted(range));
});

export const ProviderKindSchema = z.enum(PROVIDER_KINDS, {
  error: (issue) => formatDiagnosticMessage('unknown-kind', [quoted(issue.input), PROVIDER_KINDS.join(', ')]),
});

const Contract = z.string().superRefine((contract, ctx) => {
  const parts = splitContract(contract);
  if (!parts) return flag(ctx, 'invalid-contract', [], quoted(contract));
  if (!(PROVIDER_KINDS as readonly string[]).includes(parts.kind)) {
    return flag(ctx, 'unknown-kind', [], quoted(parts.kind), PROVIDER_KINDS.join(', '));
  }
  if (validRange(parts.range) === null) flag(ctx, 'invalid-range', [], quoted(parts.range));
});

export const ProvidedContractSchema = z
  .strictObject({
    kind: ProviderKindSchema,
    contract: Contract,
    /** The backend the host uses for this kind when its setting is unset; read from built-in manifests only. */
    default: z.boolean().optional(),
  })
  .superRefine((entry, ctx) => {
    const parts = splitContract(entry.contract);
    if (parts && parts.kind !== entry.kind) flag(ctx, 'contract-kind-mismatch', ['contract'], quoted(entry.contract), parts.kind, entry.kind);
  });

const Entry = z.string().superRefine((entry, ctx) => {
  // ".." is allowed: built-in manifests name code in plugins/. The loader checks at load time
  // that the resolved file stays inside the manifest's folder or the host package.
  const absolute = /^[\\/]/.test(entry) || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(entry);
  if (entry.trim() === '' || absolute) flag(ctx, 'invalid-entry', [], quoted(entry));
});

export const SETTING_TYPES = ['string', 'number', 'integer', 'boolean'] as const;

function fitsType(value: unknown, type: (typeof SETTING_TYPES)[number]): boolean {
  if (type === 'string') return typeof value === 'string';
  if (type === 'boolean') return typeof value === 'boolean';
  if (type === 'integer') return Number.isInteger(value);
  return typeof value === 'number' && Number.isFinite(value);
}

export const ManifestSettingFieldSchema = z
  .strictObject({
    type: z.enum(SETTING_TYPES),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    /** Absent means optional: the field may be left unset. */
    required: z.boolean().optional(),
    secret: z.boolean().optional(),
    description: z.string().optional(),
    env: z.string().regex(ENV_NAME, 'env must be an environment variable name like "PROVIDER_API_KEY"').optional(),
    enum: z.array(z.string()).optional(),
  })
  .superRefine((field, ctx) => {
    if (field.enum !== undefined) {
      if (field.type !== 'string') flag(ctx, 'setting-enum-invalid', ['enum'], `enum is only allowed on string fields, not ${field.type}`);
      else if (field.enum.length === 0) flag(ctx, 'setting-enum-invalid', ['enum'], 'enum must list at least one value');
      else if (new Set(field.enum).size !== field.enum.length) flag(ctx, 'setting-enum-invalid', ['enum'], 'enum lists a value twice');
    }
    if (field.default !== undefined) {
      if (!fitsType(field.default, field.type)) flag(ctx, 'setting-default-invalid', ['default'], quoted(field.default), `type ${field.type}`);
      else if (field.enum && field.type === 'string' && !field.enum.includes(field.default as string)) {
        flag(ctx, 'setting-default-invalid', ['default'], quoted(field.default), `one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}`);
      }
    }
  });

export const ManifestSettingsSchema = z.record(
  z.string().regex(SETTING_NAME, 'setting names are letters, digits and "_", not starting with a digit'),
  ManifestSettingFieldSchema,
);

const EgressEntry = z.string().superRefine((entry, ctx) => {
  // `settings:<field>`: the host of the URL held by that setting, resolved when the plugin starts.
  if (/^settings:[A-Za-z_][A-Za-z0-9_]*$/.test(entry)) return;
  const match = EGRESS.exec(entry);
  const port = match?.[1] === undefined ? undefined : Number(match[1]);
  if (!match || (port !== undefined && (port < 1 || port > 65535))) flag(ctx, 'invalid-egress', [], quoted(entry));
});

/** A string with `{{ name }}` placeholders; checked against its block in cross-field.ts. */
const Template = z.string();

export type JsonTemplate = string | number | boolean | null | JsonTemplate[] | { [key: string]: JsonTemplate };

const MAX_JSON_DEPTH = 64;
function isJsonValue(value: unknown, depth = 0): value is JsonTemplate {
  if (depth > MAX_JSON_DEPTH) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    return Object.values(value).every((v) => isJsonValue(v, depth + 1));
  }
  return false;
}

/** Any JSON value (at most 64 levels deep); its strings are templates. */
export const JsonTemplateSchema = z.custom<JsonTemplate>((value) => isJsonValue(value), {
  error: 'must be a JSON value (string, number, boolean, null, array or object) at most 64 levels deep',
});

const HeaderMap = z.record(z.string().regex(HEADER_NAME, 'must be an HTTP header name'), Template);
const FieldMap = z.record(z.string().min(1, 'names must not be empty'), Template);

export const HttpBodySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('json'), template: JsonTemplateSchema }),
  z.strictObject({ kind: z.literal('form'), fields: FieldMap }),
  z.strictObject({ kind: z.literal('multipart'), fields: FieldMap, file_field: z.string().min(1) }),
]);

export const HttpAuthSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('basic'), username: Template, password: Template }),
  z.strictObject({ kind: z.literal('bearer'), token: Template }),
  z.strictObject({ kind: z.literal('api_key_header'), header: z.string().regex(HEADER_NAME, 'must be an HTTP header name'), value: Template }),
  z.strictObject({ kind: z.literal('api_key_query'), param: z.string().min(1), value: Template }),
]);

const ResponsePath = z.string().superRefine((path, ctx) => {
  if (responsePathSteps(path) === null) flag(ctx, 'invalid-response-path', [], quoted(path));
});

export const HttpResponseMapSchema = z.strictObject({
  job_id: ResponsePath.optional(),
  status: ResponsePath.optional(),
  pages: ResponsePath.optional(),
  error: ResponsePath.optional(),
});

export const HttpActionSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: Template,
  headers: HeaderMap.optional(),
  query: FieldMap.optional(),
  body: HttpBodySchema.optional(),
  auth: HttpAuthSchema.optional(),
  response: HttpResponseMapSchema.optional(),
  timeout_ms: z.int().min(1).max(300_000).optional(),
});

/** The statuses a provider's own status words map onto. */
export const HTTP_FAX_STATUSES = ['queued', 'in_progress', 'SUCCESS', 'FAILED'] as const;
const HttpFaxStatus = z.enum(HTTP_FAX_STATUSES);

/** Where a status callback's facts are: response paths of a JSON body, or names of form fields. */
const CALLBACK_FIELDS = ['status', 'job_id', 'provider_sid', 'pages', 'error'] as const;

/**
 * How the provider's status callbacks are read (`/webhooks/<id>/callback?job_id=...`, the URL
 * `{{ callback_url }}` gives the provider) and, optionally, how they are signed.
 */
export const HttpCallbackSchema = z
  .strictObject({
    format: z.enum(['json', 'form']),
    status: z.string().min(1, 'status must name where the status word is'),
    /** Absent: the job is the `job_id` of the callback URL's query. */
    job_id: z.string().min(1).optional(),
    provider_sid: z.string().min(1).optional(),
    pages: z.string().min(1).optional(),
    error: z.string().min(1).optional(),
    /** HMAC-SHA256 of the raw body, lowercase hex, in `header`, keyed with the secret setting `secret`. */
    signature: z
      .strictObject({
        header: z.string().regex(HEADER_NAME, 'must be an HTTP header name'),
        secret: z.string().regex(SETTING_NAME, 'must name a secret setting'),
      })
      .optional(),
  })
  .superRefine((callback, ctx) => {
    if (callback.format !== 'json') return;
    for (const field of CALLBACK_FIELDS) {
      const path = callback[field];
      if (path !== undefined && responsePathSteps(path) === null) flag(ctx, 'invalid-response-path', [field], quoted(path));
    }
  });

export const HttpBlockSchema = z.strictObject({
  actions: z.strictObject({
    send: HttpActionSchema,
    status: HttpActionSchema.optional(),
    cancel: HttpActionSchema.optional(),
  }),
  status_map: z.record(z.string().min(1, 'status words must not be empty'), HttpFaxStatus),
  default_status: HttpFaxStatus.optional(),
  callback: HttpCallbackSchema.optional(),
});

export const AlertBlockSchema = z.strictObject({
  method: z.literal('POST').optional(),
  url: Template,
  headers: HeaderMap.optional(),
  body: JsonTemplateSchema,
});

/** Another name a setting may use for this plugin (`system_one.provider: "hosted"`); same rule as ids. */
const Alias = z.string().superRefine((alias, ctx) => {
  if (!isPluginId(alias)) flag(ctx, 'invalid-alias', [], quoted(alias));
});

/** A fixed path the host also routes to `POST /webhooks/<id>/<kind>` (rules in webhook-alias.ts). */
export const WebhookAliasSchema = z.strictObject({
  path: z.string().superRefine((path, ctx) => {
    const problem = webhookAliasPathProblem(path);
    if (problem) flag(ctx, 'invalid-webhook-alias', [], problem);
  }),
  kind: z.enum(['callback', 'inbound']),
  /** The body's media type, for the API document. */
  contentType: z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/i, 'contentType must be a media type like "application/json"'),
  summary: z.string().min(1, 'summary must not be empty'),
});

/** Field by field rules; rules that relate fields live in cross-field.ts. */
export const ManifestShapeSchema = z.strictObject({
  manifestVersion: z.literal(1),
  id: Id,
  name: z.string().min(1, 'name must not be empty'),
  version: Version,
  description: z.string(),
  author: z.string().min(1, 'author must not be empty'),
  host: HostRange,
  provides: z.array(ProvidedContractSchema).min(1, 'provides must list at least one {kind, contract}'),
  capabilities: z.array(z.string().min(1, 'capabilities must not be empty strings')).default([]),
  aliases: z.array(Alias).optional(),
  webhookAliases: z.array(WebhookAliasSchema).optional(),
  entry: Entry.optional(),
  http: HttpBlockSchema.optional(),
  alert: AlertBlockSchema.optional(),
  settings: ManifestSettingsSchema.optional(),
  egress: z.array(EgressEntry).optional(),
  maturity: z.enum(['alpha', 'beta', 'stable', 'deprecated']).optional(),
  /** Where its code runs: a child process, a worker thread or the gateway's own process (code plugins). */
  isolation: z.enum(['process', 'worker', 'in-process']).optional(),
  homepage: z.url({ protocol: /^https?$/, error: 'homepage must be an http(s) URL' }).optional(),
  license: z.string().min(1, 'license must not be empty').optional(),
});

/** The whole manifest: every rule that does not depend on the running host. */
export const ManifestSchema = ManifestShapeSchema.superRefine((manifest, ctx) => {
  for (const finding of crossFieldFindings(manifest)) flag(ctx, finding.code, finding.path, ...finding.args);
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestSettings = z.infer<typeof ManifestSettingsSchema>;
export type ManifestSettingField = z.infer<typeof ManifestSettingFieldSchema>;
export type ProvidedContract = z.infer<typeof ProvidedContractSchema>;
export type HttpBlock = z.infer<typeof HttpBlockSchema>;
export type HttpAction = z.infer<typeof HttpActionSchema>;
export type HttpBody = z.infer<typeof HttpBodySchema>;
export type HttpAuth = z.infer<typeof HttpAuthSchema>;
export type HttpResponseMap = z.infer<typeof HttpResponseMapSchema>;
export type HttpCallback = z.infer<typeof HttpCallbackSchema>;
export type HttpFaxStatus = (typeof HTTP_FAX_STATUSES)[number];
export type AlertBlock = z.infer<typeof AlertBlockSchema>;
export type WebhookAlias = z.infer<typeof WebhookAliasSchema>;
export type SettingType = (typeof SETTING_TYPES)[number];
