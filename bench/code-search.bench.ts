// Code-search benchmarks on a real 10,000-file TypeScript/JavaScript tree (this package's
// node_modules, then npm's own, then copies of the first files under another prefix until
// 10,000): full BM25 indexing with tree-sitter chunking (files/s, peak RSS of the indexer
// child), a reindex with nothing changed against the full index, search latency over HTTP, and
// our query time against ripgrep scanning the same tree for the same terms, all in one run.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { removeDir, startGateway } from '../test/support/gateway.js';
import { search, statusOf, waitForRun } from '../test/host/surfaces/search/search-repo-fixture.js';
import { percentile, ms } from './stats.js';
import { QUERIES, codeTree } from './code-tree.js';

const { dir: tree, files: treeFiles, bytes } = codeTree();
console.log(`tree: ${treeFiles} files, ${(bytes / 1e6).toFixed(1)} MB of TypeScript/JavaScript`);

const gw = await startGateway({ REPOS: JSON.stringify({ tree }), REPO: 'tree', LOG_LEVEL: 'warn' });
const runs = gw.gateway.surfaces.search.runs;

/** Runs one index of the tree (node_modules included) and samples the child's peak RSS. */
async function indexOnce(): Promise<{ seconds: number; status: any; peakRss: number; cpuSeconds: number }> {
  const run = await runs.start('tree', false, { includeDependencies: true });
  let peakRss = 0;
  let cpuSeconds = 0;
  const sampler = setInterval(() => {
    const pid = runs.childPid(run.id);
    if (!pid) return;
    try {
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      peakRss = Math.max(peakRss, kb * 1024);
      // utime + stime of every thread of the child, in clock ticks (100 per second on Linux).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpuSeconds = Math.max(cpuSeconds, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // exited
    }
  }, 20);
  const status = await waitForRun(gw.url, 'tree', 600_000);
  clearInterval(sampler);
  const seconds = (Date.parse(status.metadata.finished_at) - Date.parse(status.metadata.started_at)) / 1000;
  return { seconds, status, peakRss, cpuSeconds };
}

const full = await indexOnce();
if (full.status.run.state !== 'finished') throw new Error(full.status.status.join('\n'));
const files = full.status.run.files_seen;
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (other work shares these cores)`);
console.log(`full index: ${files} files (${full.status.run.files_skipped} skipped), ${full.status.run.chunks} chunks in ${full.seconds.toFixed(1)} s = ${(files / full.seconds).toFixed(0)} files/s (target >= 1000), indexer peak RSS ${(full.peakRss / 1e6).toFixed(0)} MB (target < 600)`);
console.log(`  indexer CPU time ${full.cpuSeconds.toFixed(1)} s (all threads) = ${(files / (full.cpuSeconds / 2)).toFixed(0)} files/s if its work had both cores to itself`);
const again = await indexOnce();
console.log(`reindex, nothing changed: ${again.seconds.toFixed(2)} s = ${((again.seconds / full.seconds) * 100).toFixed(1)}% of the full index (target < 10%), ${again.status.run.files_changed} files re-chunked`);

for (let i = 0; i < 3; i++) for (const q of QUERIES) await search(gw.url, { q, repo: 'tree' }); // warm
const latencies: number[] = [];
const cpuBefore = process.cpuUsage();
for (let round = 0; round < 10; round++) {
  for (const q of QUERIES) {
    const t = performance.now();
    const res = await search(gw.url, { q, repo: 'tree' });
    latencies.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`search failed: ${JSON.stringify(res.body)}`);
  }
}
const cpu = process.cpuUsage(cpuBefore);
const p50 = percentile(latencies, 50);
console.log(`  CPU per query (gateway and HTTP client, same process): ${ms((cpu.user + cpu.system) / 1000 / latencies.length)}`);
console.log(`search over HTTP, ${latencies.length} queries: p50 ${ms(p50)} (target < 20 ms), p95 ${ms(percentile(latencies, 95))} (target < 60 ms)`);

// ripgrep: the same terms, case-insensitive, listing matching files (its fastest useful mode).
const rg = spawnSync('rg', ['--version']);
if (rg.status === 0) {
  const rgTimes: number[] = [];
  for (const q of QUERIES.slice(0, 8)) {
    const terms = q.split(/\s+/);
    const args = ['-l', '-i', '--no-ignore', '--hidden', ...terms.flatMap((t) => ['-e', t]), tree];
    const t = performance.now();
    try {
      execFileSync('rg', args, { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
    } catch {
      // exit 1: no match
    }
    rgTimes.push(performance.now() - t);
  }
  const rgMedian = percentile(rgTimes, 50);
  console.log(`ripgrep over the same tree: median ${ms(rgMedian)} per query; our search is ${(rgMedian / p50).toFixed(1)}x faster (rg median / our p50)`);
} else {
  console.log('ripgrep (rg) not installed: no baseline');
}
console.log(`status after the runs: ${(await statusOf(gw.url, 'tree')).status.slice(-4).join(' | ')}`);
await gw.close();
removeDir(tree);
