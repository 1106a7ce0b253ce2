/** Manifests: the schema, the validator that reports diagnostics, and settings built from them. */
export {
  ManifestSchema,
  ManifestShapeSchema,
  ManifestSettingsSchema,
  ManifestSettingFieldSchema,
  ProvidedContractSchema,
  HttpBlockSchema,
  HttpActionSchema,
  HttpBodySchema,
  HttpAuthSchema,
  HttpResponseMapSchema,
  HttpCallbackSchema,
  AlertBlockSchema,
  WebhookAliasSchema,
  JsonTemplateSchema,
  HTTP_FAX_STATUSES,
  SETTING_TYPES,
  type Manifest,
  type ManifestSettings,
  type ManifestSettingField,
  type ProvidedContract,
  type HttpBlock,
  type HttpAction,
  type HttpBody,
  type HttpAuth,
  type HttpResponseMap,
  type HttpCallback,
  type HttpFaxStatus,
  type AlertBlock,
  type WebhookAlias,
  type JsonTemplate,
  type SettingType,
} from './schema.js';
export {
  MANIFEST_DIAGNOSTICS,
  manifestDiagnostic,
  type ManifestDiagnostic,
  type ManifestDiagnosticCode,
} from './diagnostics.js';
export { validateManifest, parseManifestText, type ValidateManifestOptions, type ManifestValidation } from './validate.js';
export { entryLocationDiagnostic, type EntryLocation } from './entry-location.js';
export { DECLARATIVE_BLOCKS, type HostFacts } from './compatibility.js';
export { RESERVED_PATH_ROOTS, webhookAliasPathProblem } from './webhook-alias.js';
export { PLUGIN_ID_PATTERN, PLUGIN_ID_RULE, isPluginId } from './plugin-id.js';
export { settingsSchemaFromManifest, envMapFromManifest, fromNumberText, fromBooleanText } from './settings-schema.js';
export { responsePathSteps, valueAtPath, type ResponsePathStep } from './response-path.js';
export {
  parseTemplate,
  checkPlaceholder,
  templateSites,
  HTTP_TEMPLATE_ROOTS,
  ALERT_TEMPLATE_FIELDS,
  type TemplateScope,
  type TemplatePart,
  type TemplateParse,
  type TemplateSite,
} from './templates.js';
