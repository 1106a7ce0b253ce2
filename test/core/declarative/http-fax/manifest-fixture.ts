import { CONTRACT_VERSIONS } from '../../../../core/sdk/index.js';
import { validateManifest, type Manifest } from '../../../../core/manifest/index.js';

/**
 * A fax manifest with an `http` block, validated by the real validator so every test runs a
 * manifest an author could ship. Throws with the diagnostics when it is not valid.
 */
export function httpFaxManifest(parts: { http: unknown; settings?: Record<string, unknown>; egress?: string[]; id?: string }): Manifest {
  const raw = {
    manifestVersion: 1,
    id: parts.id ?? 'test-http-fax',
    name: 'Test HTTP fax',
    version: '1.0.0',
    description: 'manifest-defined fax provider under test',
    author: 'tests',
    host: '^0.1.0',
    provides: [{ kind: 'fax', contract: 'fax@^1' }],
    settings: parts.settings ?? {},
    egress: parts.egress ?? ['127.0.0.1'],
    http: parts.http,
  };
  const result = validateManifest(raw, { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS });
  if (!result.manifest) throw new Error(`test manifest invalid: ${JSON.stringify(result.diagnostics)}`);
  return result.manifest;
}

/** A base_url setting pointing at a fake. */
export const baseUrlSetting = { base_url: { type: 'string', required: true } };
