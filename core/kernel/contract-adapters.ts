import { CONTRACT_ADAPTERS, CONTRACT_VERSIONS, type PluginInstance, type ProviderKind } from '../sdk/index.js';
import { servingVersion } from '../manifest/contract-serving.js';
import { splitContract } from '../manifest/ranges.js';

/**
 * Serves every provider of a started code plugin at the current contract of its kind: a
 * provider declared for an older major (`alert-sink@^1`) is wrapped in that major's adapter,
 * so the host only ever calls the current contract. `contracts` are the manifest's declared
 * `kind@range` strings; a kind declared at the current major is left as it is.
 */
export function servedAtCurrentContracts(instance: PluginInstance, contracts: readonly string[]): PluginInstance {
  for (const contract of contracts) {
    const kind = splitContract(contract)?.kind as ProviderKind | undefined;
    const version = servingVersion(contract);
    const provider = kind ? instance.providers[kind] : undefined;
    if (!kind || !provider || version === undefined || version === CONTRACT_VERSIONS[kind]) continue;
    const adapter = CONTRACT_ADAPTERS[kind]?.find((a) => a.version === version);
    if (adapter) instance.providers = { ...instance.providers, [kind]: adapter.adapt(provider) };
  }
  return instance;
}
