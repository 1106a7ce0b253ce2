import { templateSites, parseTemplate, type Manifest, type ManifestDiagnostic } from '../../manifest/index.js';

/** Placeholders the manifest language knows but this runtime does not fill. */
const UNSUPPORTED: Record<string, string> = {
  callback_url: 'this host has no status-callback route for manifest providers; poll with a "status" action instead',
};

/**
 * What keeps a valid manifest's `http` block from running on this host: the validator accepts
 * the whole template language, the runtime refuses at start what it cannot honour.
 */
export function httpRuntimeDiagnostics(manifest: Manifest): ManifestDiagnostic[] {
  if (!manifest.http) return [];
  const out: ManifestDiagnostic[] = [];
  for (const site of templateSites(manifest.http, 'http')) {
    const parsed = parseTemplate(site.text);
    for (const expression of parsed.ok ? parsed.placeholders : []) {
      const reason = UNSUPPORTED[expression];
      if (reason) {
        out.push({ severity: 'error', code: 'template-unsupported', path: site.path.join('.'), message: `{{ ${expression} }} is not supported: ${reason}` });
      }
    }
  }
  return out;
}
