import { FAX_CONTRACT, type FaxProvider } from './fax.js';
import { STORAGE_CONTRACT, type StorageProvider } from './storage.js';
import { JUDGE_CONTRACT, type JudgeProvider } from './judge.js';
import { RETRIEVAL_CONTRACT, type RetrievalProvider } from './retrieval.js';
import { ALERT_SINK_CONTRACT, type AlertSinkProvider } from './alert-sink.js';
import { INBOUND_SINK_CONTRACT, type InboundSinkProvider } from './inbound-sink.js';
import { ALERT_SINK_CONTRACT_V1, alertSinkOfV1, type AlertSinkProviderV1 } from './alert-sink-v1.js';

export * from './fax.js';
export * from './storage.js';
export * from './judge.js';
export * from './retrieval.js';
export * from './alert-sink.js';
export * from './alert-sink-v1.js';
export * from './inbound-sink.js';

export const PROVIDER_KINDS = ['fax', 'storage', 'judge', 'retrieval', 'alert-sink', 'inbound-sink'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The contract version this host implements, per kind. */
export const CONTRACT_VERSIONS: Record<ProviderKind, string> = {
  fax: FAX_CONTRACT,
  storage: STORAGE_CONTRACT,
  judge: JUDGE_CONTRACT,
  retrieval: RETRIEVAL_CONTRACT,
  'alert-sink': ALERT_SINK_CONTRACT,
  'inbound-sink': INBOUND_SINK_CONTRACT,
};

/** The provider interface of each kind. */
export interface ProviderMap {
  fax: FaxProvider;
  storage: StorageProvider;
  judge: JudgeProvider;
  retrieval: RetrievalProvider;
  'alert-sink': AlertSinkProvider;
  'inbound-sink': InboundSinkProvider;
}

/**
 * An older major of a kind's contract that the host still serves: the last version of that
 * major, and the adapter that serves a provider written for it as the current major.
 */
export interface ContractAdapter<K extends ProviderKind = ProviderKind> {
  version: string;
  adapt(provider: unknown): ProviderMap[K];
}

/** The older majors served beside each kind's current contract (a breaking change ships `kind@2` beside `kind@1`). */
export const CONTRACT_ADAPTERS: { readonly [K in ProviderKind]?: readonly ContractAdapter<K>[] } = {
  'alert-sink': [{ version: ALERT_SINK_CONTRACT_V1, adapt: (provider) => alertSinkOfV1(provider as AlertSinkProviderV1) }],
};
