import { ALERT_SINK_CONTRACT_V1, PROVIDER_KINDS } from '../sdk/contracts/index.js';
import { providesAt } from './contract-serving.js';
import { egressAllows } from '../kernel/egress.js';
import type { ManifestDiagnosticCode } from './diagnostics.js';
import { checkPlaceholder, parseTemplate, templateSites, urlHostOf, type TemplateScope } from './templates.js';

/** A broken rule that relates several fields of a manifest. */
export interface CrossFieldFinding {
  code: ManifestDiagnosticCode;
  path: (string | number)[];
  args: unknown[];
}

type Loose = Record<string, unknown>;
const isRecord = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The provider kind each declarative block implements. */
const DECLARATIVE_KIND: Record<TemplateScope, string> = { http: 'fax', alert: 'alert-sink' };

/**
 * Rules between fields: entry versus declarative blocks, the kind a block implements, its
 * templates against `settings`, its URLs against `egress`. Takes unvalidated input and skips
 * whatever is not shaped right, so these findings come out even beside shape errors.
 */
export function crossFieldFindings(input: unknown): CrossFieldFinding[] {
  const findings: CrossFieldFinding[] = [];
  if (!isRecord(input)) return findings;
  const add = (code: ManifestDiagnosticCode, path: (string | number)[], ...args: unknown[]) => findings.push({ code, path, args });

  const blocks = (['http', 'alert'] as const).filter((key) => input[key] !== undefined);
  const hasEntry = input.entry !== undefined;
  if (hasEntry && blocks.length) add('entry-and-declarative', ['entry'], blocks.map((b) => `"${b}"`).join(' and '));
  if (!hasEntry && !blocks.length) add('entry-or-declarative-missing', []);
  if (blocks.length > 1) add('multiple-declarative', ['alert'], '"http" and "alert"');

  const provides = Array.isArray(input.provides) ? input.provides : [];
  const seen = new Set<string>();
  provides.forEach((item, i) => {
    const kind = isRecord(item) ? item.kind : undefined;
    if (typeof kind !== 'string' || !(PROVIDER_KINDS as readonly string[]).includes(kind)) return;
    if (seen.has(kind)) add('duplicate-kind', ['provides', i, 'kind'], kind);
    seen.add(kind);
    for (const block of blocks) {
      if (kind !== DECLARATIVE_KIND[block]) add('declarative-kind-mismatch', ['provides', i, 'kind'], block, DECLARATIVE_KIND[block], kind);
    }
  });

  const kinds = new Set(provides.map((item) => (isRecord(item) ? item.kind : undefined)));
  const aliases = Array.isArray(input.aliases) ? input.aliases : [];
  aliases.forEach((alias, i) => {
    if (alias === input.id || aliases.indexOf(alias) !== i) add('alias-taken', ['aliases', i], JSON.stringify(alias), input.id);
  });
  const webhookAliases = Array.isArray(input.webhookAliases) ? input.webhookAliases : [];
  if (webhookAliases.length && !kinds.has('fax')) add('invalid-webhook-alias', ['webhookAliases'], 'webhook aliases are routes of a fax plugin: this manifest does not provide kind "fax"');
  const paths = webhookAliases.map((a) => (isRecord(a) && typeof a.path === 'string' ? a.path.toLowerCase() : undefined));
  paths.forEach((p, i) => {
    if (p !== undefined && paths.indexOf(p) !== i) add('invalid-webhook-alias', ['webhookAliases', i, 'path'], `alias path ${JSON.stringify(p)} is listed twice`);
  });

  const settings = isRecord(input.settings) ? input.settings : {};
  const alertV1 = providesAt(input, 'alert-sink', ALERT_SINK_CONTRACT_V1);
  const egress = Array.isArray(input.egress) ? input.egress.filter((e): e is string => typeof e === 'string') : [];
  for (const block of blocks) {
    if (!Array.isArray(input.egress) || input.egress.length === 0) add('egress-required', ['egress'], block);
    for (const site of templateSites(input[block], block)) {
      const parsed = parseTemplate(site.text);
      if (!parsed.ok) {
        add('invalid-template', site.path, parsed.reason);
        continue;
      }
      for (const expression of parsed.placeholders) {
        const check = checkPlaceholder(expression, block, { alertV1 });
        if (!check.ok) add('invalid-template', site.path, check.reason);
        else if (check.setting) {
          const field = Object.hasOwn(settings, check.setting.field) ? settings[check.setting.field] : undefined;
          if (!isRecord(field)) add('template-unknown-setting', site.path, expression, check.setting.field);
          else if (check.setting.namespace === 'secrets' && field.secret !== true) add('template-not-secret', site.path, expression, check.setting.field);
        }
      }
      if (site.path[site.path.length - 1] !== 'url') continue;
      const host = urlHostOf(site.text);
      if (host.kind === 'invalid') add('invalid-url', site.path, JSON.stringify(site.text));
      else if (host.kind === 'literal' && egress.length && !egressAllows(egress, host.url)) {
        add('egress-host-missing', site.path, host.url.host, egress.join(', '));
      }
    }
  }
  const secretSetting = isRecord(input.http) && isRecord(input.http.callback) && isRecord(input.http.callback.signature) ? input.http.callback.signature.secret : undefined;
  if (typeof secretSetting === 'string') {
    const at = ['http', 'callback', 'signature', 'secret'];
    const field = Object.hasOwn(settings, secretSetting) ? settings[secretSetting] : undefined;
    if (!isRecord(field)) add('callback-secret-unknown', at, secretSetting);
    else if (field.secret !== true) add('callback-secret-not-secret', at, secretSetting);
  }
  return findings;
}
