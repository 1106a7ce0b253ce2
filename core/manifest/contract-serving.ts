import { CONTRACT_ADAPTERS, CONTRACT_VERSIONS, PROVIDER_KINDS, type ProviderKind } from '../sdk/contracts/index.js';
import { satisfiesRange, splitContract } from './ranges.js';

/**
 * The version of its kind's contract that serves a declared `kind@range`: the current one
 * (`contracts`, default the host's CONTRACT_VERSIONS), else the last version of an older major
 * the host still serves through its adapter (CONTRACT_ADAPTERS); undefined when none does.
 */
export function servingVersion(contract: string, contracts: Partial<Record<ProviderKind, string>> = CONTRACT_VERSIONS): string | undefined {
  const parts = splitContract(contract);
  if (!parts || !(PROVIDER_KINDS as readonly string[]).includes(parts.kind)) return undefined;
  const kind = parts.kind as ProviderKind;
  const current = contracts[kind];
  if (current !== undefined && satisfiesRange(current, parts.range)) return current;
  return CONTRACT_ADAPTERS[kind]?.find((adapter) => satisfiesRange(adapter.version, parts.range))?.version;
}

/** True when the manifest (unvalidated input too) provides `kind` at `version` (an older major served through its adapter). */
export function providesAt(input: unknown, kind: ProviderKind, version: string): boolean {
  const provides = (input as { provides?: unknown })?.provides;
  if (!Array.isArray(provides)) return false;
  return provides.some((item) => {
    const contract = (item as { kind?: unknown; contract?: unknown })?.contract;
    return (item as { kind?: unknown }).kind === kind && typeof contract === 'string' && servingVersion(contract) === version;
  });
}
