// What isolation costs: a fax send (fax-sim) and a search (retrieval-sqlite) called through the
// plugin in this process and through the same plugin in a child process, in the same run, with
// the resident memory each isolate adds.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FaxSendRequest, PluginDefinition } from '../core/sdk/index.js';
import { startPlugin, type StartedPlugin } from '../core/testing/index.js';
import faxSim from '../plugins/fax-sim/index.js';
import retrievalSqlite from '../plugins/retrieval-sqlite/index.js';
import { makePdf, startFaxDocumentServer } from '../test/fakes/fax-document-server.js';
import { ROOT, removeDir, tempDir } from '../test/support/gateway.js';
import { ms, percentile } from './stats.js';

const CALLS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const dataDir = tempDir('switchboard-bench-isolation-');
for (const sub of ['isolated', 'in-process']) mkdirSync(path.join(dataDir, sub));
const documents = await startFaxDocumentServer();
const pdf = await makePdf(1);

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const children = () => readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

async function start(id: string, plugin: PluginDefinition, settings: Record<string, unknown>, isolated: boolean): Promise<{ plugin: StartedPlugin; rssMb: number }> {
  const before = new Set(children());
  const started = await startPlugin(plugin, {
    pluginId: id,
    // Each its own: two retrieval-sqlite instances on one database file would wait on its lock.
    dataDir: path.join(dataDir, isolated ? 'isolated' : 'in-process'),
    settings,
    timeouts: { startMs: 60_000 },
    ...(isolated ? { isolation: { mode: 'process' as const, entryFile: path.join(ROOT, 'dist/plugins', id, 'index.js') } } : {}),
  });
  const isolate = children().find((pid) => !before.has(pid));
  return { plugin: started, rssMb: isolate ? rssOf(isolate) : 0 };
}

async function measure(call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call(WARMUP + i);
    samples.push(performance.now() - t);
  }
  return samples;
}

async function compare(name: string, id: string, plugin: PluginDefinition, settings: Record<string, unknown>, prepare: (s: StartedPlugin) => Promise<void>, call: (s: StartedPlugin, i: number) => Promise<unknown>) {
  const inProcess = await start(id, plugin, settings, false);
  const isolated = await start(id, plugin, settings, true);
  await prepare(inProcess.plugin);
  await prepare(isolated.plugin);
  // Alternate rounds so that neither side gets the machine's quieter moment.
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < 2; round++) {
    a.push(...(await measure((i) => call(inProcess.plugin, i))));
    b.push(...(await measure((i) => call(isolated.plugin, i))));
  }
  await inProcess.plugin.stop();
  await isolated.plugin.stop();
  const line = (label: string, s: number[]) => `${label} p50 ${ms(percentile(s, 50))}, p99 ${ms(percentile(s, 99))}`;
  console.log(`${name} over ${a.length} calls: ${line('in-process', a)}; ${line('isolated (process)', b)}; overhead p50 ${ms(percentile(b, 50) - percentile(a, 50))}, p99 ${ms(percentile(b, 99) - percentile(a, 99))}; isolate RSS ${isolated.rssMb.toFixed(1)} MB`);
}

await compare(
  'fax send (fax-sim)',
  'fax-sim',
  faxSim,
  { secret: 'bench-secret-0123456789abcdef', delayMs: 60_000 },
  async () => {},
  (s, i) => {
    const jobId = `bench-${i}-${Math.random().toString(36).slice(2)}`;
    const request: FaxSendRequest = { jobId, to: '+15551230003', document: documents.document(jobId, pdf, 1), publicBaseUrl: 'https://gateway.example.test' };
    return s.instance.providers.fax!.send(request);
  },
);

await compare(
  'search (retrieval-sqlite)',
  'retrieval-sqlite',
  retrievalSqlite,
  {},
  async (s) => {
    const docs = Array.from({ length: 200 }, (_, i) => ({ id: `doc-${i}`, text: `function handler${i}() { return fetchInvoice(${i}); } // invoice ${i % 7} payment`, metadata: { path: `src/file-${i}.ts` } }));
    await s.instance.providers.retrieval!.index('bench', docs);
  },
  (s, i) => s.instance.providers.retrieval!.search('bench', i % 2 ? 'invoice payment' : 'fetchInvoice handler', 5),
);

await documents.close();
removeDir(dataDir);
console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
