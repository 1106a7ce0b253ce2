import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { SearchConfig } from '../search-settings.js';
import type { CodeSearchPort, RepositoryRef } from '../../../platform/ports/code-search.js';
import type { IndexRunStore } from '../indexing/index-run-store.js';
import { walkRepository } from '../indexing/indexer/file-walk.js';
import { retrievalBackendId } from '../retrieval/retrieval-backend.js';
import type { Repositories } from './repositories.js';
import { searchErrors } from '../search-errors.js';

/** Code search as the workbench sees it (platform/ports/code-search.ts). */
export function codeSearchPort(deps: { repositories: Repositories; runs: IndexRunStore; kernel: Kernel; config: SearchConfig }): CodeSearchPort {
  const { repositories, runs, kernel, config } = deps;
  return {
    resolve: (name) => repositories.resolve(name),
    async listFiles(repo: RepositoryRef, max: number) {
      const walked = await walkRepository(repo.dir, { maxBytes: config.get('INDEX_MAX_FILE_BYTES'), skipDependencies: true }).catch(() => ({ files: [] as Array<{ rel: string }> }));
      return walked.files.slice(0, max).map((f) => f.rel);
    },
    async dropIndex(repo: RepositoryRef) {
      const running = await runs.running(repo.name);
      if (running) throw searchErrors.error('index_run_running', { reason: `run ${running.id} of "${repo.name}" is running; delete after it ends` });
      const backend = retrievalBackendId(config);
      if (!kernel.isActive('retrieval', backend)) throw searchErrors.error('retrieval_backend_unavailable', { backend, reason: `state ${kernel.stateOf(backend)}` });
      await kernel.withProvider('retrieval', backend, async (p) => {
        if (!p.openSession) return;
        const session = await p.openSession(repo.name);
        try {
          const sources = await session.sources();
          if (sources.length) await session.deleteSources(sources.map((s) => s.path));
          await session.commit();
        } catch (err) {
          await session.abort().catch(() => {});
          throw err;
        }
      });
    },
  };
}
