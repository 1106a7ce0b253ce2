// The two retrieval backends side by side on the 10,000-file tree of the code-search benchmark:
// one gateway on retrieval-sqlite (the default), one on retrieval-postgres (a throwaway
// PostgreSQL server), the same tree indexed by each, then search latency over HTTP in alternating
// rounds of the same queries, and how often both return the same top 5 files.
import os from 'node:os';
import { removeDir, startGateway, type TestGateway } from '../test/support/gateway.js';
import { search, waitForRun } from '../test/host/surfaces/search/search-repo-fixture.js';
import { percentile, ms } from './stats.js';
import { QUERIES, codeTree } from './code-tree.js';
import { startPostgresServer } from '../test/support/postgres-server.js';

const { dir: tree, files, bytes } = codeTree();
console.log(`tree: ${files} files, ${(bytes / 1e6).toFixed(1)} MB of TypeScript/JavaScript`);
const server = await startPostgresServer();
const env = { REPOS: JSON.stringify({ tree }), REPO: 'tree', LOG_LEVEL: 'warn', EMBEDDING_MODEL: '' };
const backends: Array<{ name: string; gw: TestGateway }> = [
  { name: 'retrieval-sqlite', gw: await startGateway(env, { watch: false }) },
  { name: 'retrieval-postgres', gw: await startGateway({ ...env, DATABASE_URL: server.url, RETRIEVAL_BACKEND: 'retrieval-postgres' }, { watch: false }) },
];

try {
  console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (other work shares these cores)`);
  for (const { name, gw } of backends) {
    const run = await gw.gateway.surfaces.search.runs.start('tree', false, { includeDependencies: true });
    const status = await waitForRun(gw.url, 'tree', 1_800_000);
    if (status.run.state !== 'finished') throw new Error(`${name}: ${status.status.join('\n')}`);
    const seconds = (Date.parse(status.metadata.finished_at) - Date.parse(status.metadata.started_at)) / 1000;
    console.log(`${name}: full index of ${status.run.files_seen} files, ${status.run.chunks} chunks in ${seconds.toFixed(1)} s (run ${run.id})`);
  }
  const latencies = new Map<string, number[]>(backends.map((b) => [b.name, []]));
  const top5 = new Map<string, string[][]>(backends.map((b) => [b.name, []]));
  for (const { gw } of backends) for (let i = 0; i < 3; i++) for (const q of QUERIES) await search(gw.url, { q, repo: 'tree' }); // warm
  for (let round = 0; round < 10; round++) {
    for (const { name, gw } of backends) {
      for (const q of QUERIES) {
        const t = performance.now();
        const res = await search(gw.url, { q, repo: 'tree' });
        latencies.get(name)!.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`${name}: search failed: ${JSON.stringify(res.body)}`);
        if (round === 0) top5.get(name)!.push((res.body.results as Array<{ path: string }>).slice(0, 5).map((r) => r.path));
      }
    }
  }
  const base = percentile(latencies.get('retrieval-sqlite')!, 50);
  for (const { name } of backends) {
    const l = latencies.get(name)!;
    const p50 = percentile(l, 50);
    console.log(`${name}: search over HTTP, ${l.length} queries: p50 ${ms(p50)}, p95 ${ms(percentile(l, 95))}${name === 'retrieval-sqlite' ? '' : ` (target p50 < 20 ms; ${(p50 / base).toFixed(2)}x retrieval-sqlite's p50)`}`);
  }
  const [a, b] = [top5.get('retrieval-sqlite')!, top5.get('retrieval-postgres')!];
  const same = a.filter((paths, i) => JSON.stringify(paths) === JSON.stringify(b[i])).length;
  console.log(`same top 5 files in the same order: ${same} of ${a.length} queries`);
} finally {
  for (const { gw } of backends) await gw.close();
  server.stop();
  removeDir(tree);
}
