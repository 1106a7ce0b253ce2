import { CONTRACT_VERSIONS } from '../sdk/contracts/index.js';
import { DECLARATIVE_BLOCKS } from '../manifest/index.js';
import { lintManifestFiles, type LintResult } from '../manifest/manifest-lint.js';
import { kitVersion } from './kit-package.js';

export { formatLintResult, type LintResult } from '../manifest/manifest-lint.js';

/** Checks plugin manifests as a host of this kit's version loads them from a plugin folder (`switchboard-sdk lint`). */
export function lintManifests(files: readonly string[]): Promise<LintResult[]> {
  return lintManifestFiles(files, { hostVersion: kitVersion(), contracts: CONTRACT_VERSIONS, declarativeBlocks: DECLARATIVE_BLOCKS });
}
