import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../platform/runtime/paths.js';
import { CONTRACT_VERSIONS } from '../../core/sdk/contracts/index.js';
import { hostDeclarativeRuntimes } from '../platform/plugins/declarative-runtimes.js';
import { manifestDiagnostic, parseManifestText, type ManifestDiagnostic } from '../../core/manifest/index.js';

export interface LintResult {
  file: string;
  ok: boolean;
  id?: string;
  version?: string;
  diagnostics: ManifestDiagnostic[];
}

/** Validates each manifest file as the loader would on this host (its declarative runtimes included). */
export async function lintManifestFiles(files: readonly string[], hostVersion: string, declarativeBlocks: readonly string[] = hostDeclarativeRuntimes().blocks()): Promise<LintResult[]> {
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
    const location = { manifestDir: path.dirname(path.resolve(file)), packageRoot: packageRoot() };
    const { manifest, diagnostics } = parseManifestText(text, { hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks, location });
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
