import { templateSites, parseTemplate, type Manifest, type ManifestDiagnostic } from '../../manifest/index.js';

/**
 * Why `{{ callback_url }}` cannot be filled here, or undefined when it can: only a send has a job
 * to call back about, and only a block that says how callbacks are read takes them.
 */
function callbackUrlProblem(manifest: Manifest, path: (string | number)[]): string | undefined {
  if (path[2] !== 'send') return 'only the "send" action has a callback URL';
  if (!manifest.http?.callback) return 'declare a "callback" block saying how the provider\'s status callbacks are read, or poll with a "status" action instead';
  return undefined;
}

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
      const reason = expression === 'callback_url' ? callbackUrlProblem(manifest, site.path) : undefined;
      if (reason) {
        out.push({ severity: 'error', code: 'template-unsupported', path: site.path.join('.'), message: `{{ ${expression} }} is not supported: ${reason}` });
      }
    }
  }
  return out;
}
