import { CONTRACT_ADAPTERS, type ProviderKind } from '../sdk/contracts/index.js';
import { servingVersion } from './contract-serving.js';
import { manifestDiagnostic, quoted, type ManifestDiagnostic } from './diagnostics.js';
import { pinsMajor, satisfiesRange, splitContract, validRange } from './ranges.js';

export interface HostFacts {
  /** The running host's version (package.json). */
  hostVersion: string;
  /** The contract version the host implements, per kind (CONTRACT_VERSIONS). */
  contracts: Partial<Record<ProviderKind, string>>;
  /**
   * The declarative blocks ("http", "alert") this host has a runtime for. A manifest using any
   * other block is refused as unsupported; left out, blocks are not checked (schema checks only).
   */
  declarativeBlocks?: readonly string[];
}

/** The declarative blocks a manifest may hold instead of an `entry`. */
export const DECLARATIVE_BLOCKS = ['http', 'alert'] as const;

type Loose = Record<string, unknown>;
const isRecord = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether this host can load the manifest: its host range and each contract range against the
 * running versions. Takes unvalidated input; malformed ranges are left to the schema's report.
 */
export function compatibilityDiagnostics(input: unknown, host: HostFacts): ManifestDiagnostic[] {
  const out: ManifestDiagnostic[] = [];
  if (!isRecord(input)) return out;
  const range = input.host;
  if (typeof range === 'string' && validRange(range) !== null && pinsMajor(range) && !satisfiesRange(host.hostVersion, range)) {
    out.push(manifestDiagnostic('host-range-unmet', 'host', host.hostVersion, quoted(range)));
  }
  const provides = Array.isArray(input.provides) ? input.provides : [];
  provides.forEach((item, i) => {
    const contract = isRecord(item) ? item.contract : undefined;
    const parts = typeof contract === 'string' ? splitContract(contract) : null;
    if (!parts || validRange(parts.range) === null || !Object.hasOwn(host.contracts, parts.kind)) return;
    const implemented = host.contracts[parts.kind as ProviderKind];
    // An older major still served through its adapter satisfies it too.
    const older = (CONTRACT_ADAPTERS[parts.kind as ProviderKind] ?? []).map((a) => a.version);
    if (typeof implemented === 'string' && servingVersion(contract as string, host.contracts) === undefined) {
      out.push(manifestDiagnostic('contract-range-unmet', `provides.${i}.contract`, parts.kind, older.length ? `${implemented} (and ${older.join(', ')} through an adapter)` : implemented, quoted(parts.range)));
    }
  });
  if (host.declarativeBlocks) {
    const supported = host.declarativeBlocks;
    for (const block of DECLARATIVE_BLOCKS) {
      if (Object.hasOwn(input, block) && input[block] !== undefined && !supported.includes(block)) {
        out.push(manifestDiagnostic('unsupported-block', block, block, supported.length ? supported.join(', ') : 'none'));
      }
    }
  }
  return out;
}
