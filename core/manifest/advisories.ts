import { manifestDiagnostic, quoted, type ManifestDiagnostic } from './diagnostics.js';
import { pinsMajor, splitContract } from './ranges.js';
import type { Manifest } from './schema.js';
import { checkPlaceholder, parseTemplate, templateSites, urlHostOf, type TemplateScope } from './templates.js';

/** Warnings about a valid manifest: things that work today but are likely mistakes. */
export function manifestAdvisories(manifest: Manifest): ManifestDiagnostic[] {
  const out: ManifestDiagnostic[] = [];
  if (manifest.maturity === 'deprecated') out.push(manifestDiagnostic('deprecated-plugin', 'maturity'));

  manifest.provides.forEach((entry, i) => {
    const range = splitContract(entry.contract)?.range;
    if (range && !pinsMajor(range)) out.push(manifestDiagnostic('contract-range-unpinned', `provides.${i}.contract`, quoted(range)));
  });

  const settings = manifest.settings ?? {};
  for (const [name, field] of Object.entries(settings)) {
    if (field.secret && field.default !== undefined) out.push(manifestDiagnostic('secret-default', `settings.${name}.default`, name));
  }

  for (const scope of ['http', 'alert'] as TemplateScope[]) {
    if (manifest[scope] === undefined) continue;
    for (const site of templateSites(manifest[scope], scope)) {
      const path = site.path.join('.');
      const parsed = parseTemplate(site.text);
      for (const expression of parsed.ok ? parsed.placeholders : []) {
        const setting = checkPlaceholder(expression, scope);
        if (setting.ok && setting.setting?.namespace === 'settings' && settings[setting.setting.field]?.secret) {
          out.push(manifestDiagnostic('template-secret-via-settings', path, expression, setting.setting.field));
        }
      }
      if (site.path[site.path.length - 1] === 'url' && urlHostOf(site.text).kind === 'dynamic-host') {
        out.push(manifestDiagnostic('egress-host-unchecked', path));
      }
    }
  }
  return out;
}
