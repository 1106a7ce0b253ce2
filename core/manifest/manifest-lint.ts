import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { manifestDiagnostic, type ManifestDiagnostic } from './diagnostics.js';
import type { HostFacts } from './compatibility.js';
import { parseManifestText } from './validate.js';

export interface LintResult {
  file: string;
  ok: boolean;
  id?: string;
  version?: string;
  diagnostics: ManifestDiagnostic[];
}

/**
 * Validates each manifest file as a loader with these facts would, where it sits (its entry must
 * stay in its folder): `switchboard plugins lint` with the host's, the SDK package's kit with its own.
 */
export async function lintManifestFiles(files: readonly string[], facts: HostFacts & { packageRoot?: string }): Promise<LintResult[]> {
  const { packageRoot, ...hostFacts } = facts;
  const results: LintResult[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      results.push({ file, ok: false, diagnostics: [manifestDiagnostic('unreadable-file', '', reason)] });
      continue;
    }
    const location = { manifestDir: path.dirname(path.resolve(file)), ...(packageRoot ? { packageRoot } : {}) };
    const { manifest, diagnostics } = parseManifestText(text, { ...hostFacts, location });
    results.push({ file, ok: manifest !== undefined, id: manifest?.id, version: manifest?.version, diagnostics });
  }
  return results;
}

/** `<file>: <severity> <code> at <path>: <message>` lines, then `<file>: ok (<id>@<version>)` for a valid file. */
export function formatLintResult(result: LintResult): string[] {
  const lines = result.diagnostics.map(
    (d) => `${result.file}: ${d.severity} ${d.code} at ${d.path || '(root)'}: ${d.message}`,
  );
  if (result.ok) lines.push(`${result.file}: ok (${result.id}@${result.version})`);
  return lines;
}
