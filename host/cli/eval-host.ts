import { Writable } from 'node:stream';
import { createGateway } from '../surfaces/gateway.js';
import type { EvalHost } from './eval-command.js';

/**
 * A gateway built in this process from the environment and the working directory, as
 * `npm start` would build it (same DATA_DIR, REPOS and index), but listening on nothing. Its
 * background work (fax dispatch, alerts) never starts: it only indexes and answers questions.
 */
export async function openGatewayEvalHost(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Promise<EvalHost> {
  const quiet = new Writable({ write: (_c, _e, cb) => cb() });
  const gateway = await createGateway({ env, cwd, logDestination: quiet, watch: false });
  const { repositories, runs, runStore, search, keywords, traces } = gateway.surfaces.search;
  const prepared = new Set<string>();
  return {
    traces,
    resolveRepo: (name) => repositories.resolve(name).name,
    async index(repo) {
      const run = await runs.start(repo, false);
      await runs.settled(run.id);
      const done = await runStore.get(run.id);
      if (done?.state !== 'finished') throw new Error(`indexing ${repo} ended ${done?.state ?? 'unknown'}${done?.error ? `: ${done.error}` : ''}`);
    },
    async search(q, repo, topK) {
      // Keywords are built before the first question so every question ranks with them.
      if (!prepared.has(repo)) {
        await keywords.get(repo);
        prepared.add(repo);
      }
      return (await search.search(q, repo, topK)).results;
    },
    close: () => gateway.close(),
  };
}
