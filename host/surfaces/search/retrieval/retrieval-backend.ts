import type { Logger } from 'pino';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { RetrievalProvider } from '../../../../core/sdk/index.js';
import type { SearchConfig } from '../search-settings.js';
import { searchErrors } from '../search-errors.js';

/** The retrieval plugin in force: RETRIEVAL_BACKEND, whose default is the built-in manifest marked default. */
export function retrievalBackendId(config: SearchConfig): string {
  return config.get('RETRIEVAL_BACKEND');
}

/**
 * Code search fills a collection only through write sessions (the indexer), so a backend without
 * `openSession` can never hold an index: an index run or a search with it answers 503
 * retrieval_backend_cannot_index instead of a run that fails later or an empty list.
 */
export function assertCanIndex(backend: string, provider: RetrievalProvider): void {
  if (typeof provider.openSession !== 'function') throw searchErrors.error('retrieval_backend_cannot_index', { backend });
}

/**
 * Warns once per generation when the selected retrieval backend becomes active without write
 * sessions, and when RETRIEVAL_BACKEND is changed to such a backend: selecting it is never silent.
 */
export function warnWhenBackendCannotIndex(kernel: Kernel, config: SearchConfig, logger: Logger): () => void {
  const warned = new Set<string>();
  const check = async () => {
    const backend = retrievalBackendId(config);
    const warning = await cannotIndexWarning(kernel, backend);
    const key = `${backend}#${kernel.get(backend)?.generation ?? ''}`;
    if (!warning || warned.has(key)) return;
    warned.add(key);
    logger.warn({ backend }, warning);
  };
  const run = () => void check().catch(() => {});
  const onGeneration = ({ pluginId }: { pluginId: string }) => {
    if (pluginId === retrievalBackendId(config)) run();
  };
  kernel.events.on('generation', onGeneration);
  const offConfig = config.onChange(run);
  // A write of RETRIEVAL_BACKEND over the config API answers with the warning too.
  const offAdvisor = config.addAdvisor(async (written) => {
    if (!written.includes('RETRIEVAL_BACKEND')) return [];
    const backend = retrievalBackendId(config);
    if (!kernel.isActive('retrieval', backend)) return [`RETRIEVAL_BACKEND "${backend}" is not an active retrieval plugin (state: ${kernel.stateOf(backend)}): searches and index runs answer 503 until it is`];
    const warning = await cannotIndexWarning(kernel, backend);
    return warning ? [warning] : [];
  });
  run();
  return () => {
    kernel.events.off('generation', onGeneration);
    offConfig();
    offAdvisor();
  };
}

/** The warning for an active backend without write sessions; undefined when it has them or is not active. */
async function cannotIndexWarning(kernel: Kernel, backend: string): Promise<string | undefined> {
  if (!kernel.isActive('retrieval', backend)) return undefined;
  const canIndex = await kernel.withProvider('retrieval', backend, async (p) => typeof p.openSession === 'function').catch(() => true);
  return canIndex ? undefined : `RETRIEVAL_BACKEND "${backend}" has no write sessions (openSession, retrieval@1.1): code search cannot index with it, index runs and searches answer 503 retrieval_backend_cannot_index`;
}
