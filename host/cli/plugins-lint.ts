import { packageRoot } from '../platform/runtime/paths.js';
import { CONTRACT_VERSIONS } from '../../core/sdk/contracts/index.js';
import { hostDeclarativeRuntimes } from '../platform/plugins/declarative-runtimes.js';
import { lintManifestFiles as lintWithFacts, type LintResult } from '../../core/manifest/manifest-lint.js';

export { formatLintResult, type LintResult } from '../../core/manifest/manifest-lint.js';

/** Validates each manifest file as the loader would on this host (its declarative runtimes included). */
export function lintManifestFiles(files: readonly string[], hostVersion: string, declarativeBlocks: readonly string[] = hostDeclarativeRuntimes().blocks()): Promise<LintResult[]> {
  return lintWithFacts(files, { hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks, packageRoot: packageRoot() });
}
