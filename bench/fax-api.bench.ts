// Fax API throughput, p99 latency and peak memory on the embedded default (SQLite, local
// storage, FAX_DISABLED), each against a bare express app answering the same JSON. Both servers
// run as their own processes (the gateway as `node dist/host/main.js`); the load client, the
// same code for both, stays in this process, so neither server shares a thread with it.
import { makePdf } from '../test/fakes/fax-document-server.js';
import { postFax } from '../test/support/gateway.js';
import { startBareExpress, type BareExpress } from './bare-express-process.js';
import { startBenchGateway, type BenchGateway } from './gateway-process.js';
import { mb } from './process-memory.js';
import { cpuMsOf } from './process-cpu.js';
import { load, loadFor, percentile, ms } from './stats.js';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = 16;
// Both servers get the same warm-up before anything is measured: the gateway's code is large and
// V8 keeps optimizing it (on background threads, counted in its CPU) for a few thousand requests.
const WARM_UP = Number(process.env.BENCH_WARMUP ?? 2000);
const PEAK_SECONDS = 10;
const NUMBER = '+15550104444';

type Run = Awaited<ReturnType<typeof load>>;

/** Runs `run` and returns its result with the CPU time `pid` spent meanwhile, per request. */
async function withCpu<T extends { latencies: number[] }>(pid: number, run: () => Promise<T>): Promise<T & { cpuMsPerRequest: number }> {
  const before = cpuMsOf(pid);
  const result = await run();
  return { ...result, cpuMsPerRequest: (cpuMsOf(pid) - before) / result.latencies.length };
}

function reportCpu(name: string, ours: { cpuMsPerRequest: number }, base: { cpuMsPerRequest: number }) {
  console.log(
    `  server CPU per request (${name}): gateway ${ours.cpuMsPerRequest.toFixed(3)} ms | bare express ${base.cpuMsPerRequest.toFixed(3)} ms | ratio ${(ours.cpuMsPerRequest / base.cpuMsPerRequest).toFixed(2)}x`,
  );
}

function report(name: string, ours: Run, base: Run, targets: { throughput: number; p99?: number }) {
  const rps = (r: Run) => (r.latencies.length / r.wallMs) * 1000;
  const p99Ratio = percentile(ours.latencies, 99) / percentile(base.latencies, 99);
  const aim = `(target throughput ratio >= ${targets.throughput}${targets.p99 ? `, p99 ratio <= ${targets.p99}x` : ''})`;
  console.log(
    `${name}: ${rps(ours).toFixed(0)} req/s, p99 ${ms(percentile(ours.latencies, 99))} | bare express ${rps(base).toFixed(0)} req/s, p99 ${ms(percentile(base.latencies, 99))} | throughput ratio ${(rps(ours) / rps(base)).toFixed(3)}, p99 ratio ${p99Ratio.toFixed(2)}x ${aim}`,
  );
}

const pdf = await makePdf(1);
let gw: BenchGateway | undefined;
let bare: BareExpress | undefined;
try {
  gw = await startBenchGateway();
  const sample = await postFax(gw.url, NUMBER, pdf);
  if (sample.status !== 202) throw new Error(`POST /fax answered ${sample.status}: ${await sample.text()}`);
  const body = await sample.text();
  bare = await startBareExpress(body);
  const ids: string[] = [JSON.parse(body).id];

  // The same client code for both servers: undici's fetch (keep-alive) and a FormData body.
  const postTo = (url: string, keep: boolean) => async () => {
    const res = await postFax(url, NUMBER, pdf);
    if (res.status !== 202) throw new Error(`POST ${url}/fax answered ${res.status}: ${await res.text()}`);
    const out = (await res.json()) as { id: string };
    if (keep) ids.push(out.id);
  };
  const getFrom = (url: string) => async (i: number) => {
    const res = await fetch(`${url}/fax/${ids[i % ids.length]}`);
    if (res.status !== 200) throw new Error(`GET ${url}/fax/{id} answered ${res.status}`);
    await res.json();
  };

  // Warm-up of both sides (JIT, pools, first-use allocations), not measured.
  await load(WARM_UP, CONCURRENCY, postTo(gw.url, true));
  await load(WARM_UP, CONCURRENCY, postTo(bare.url, false));
  await load(WARM_UP, CONCURRENCY, getFrom(gw.url));
  await load(WARM_UP, CONCURRENCY, getFrom(bare.url));

  const gwPid = gw.pid;
  const barePid = bare.pid;
  const post = await withCpu(gwPid, () => load(TOTAL, CONCURRENCY, postTo(gw!.url, true)));
  const postBare = await withCpu(barePid, () => load(TOTAL, CONCURRENCY, postTo(bare!.url, false)));
  report('POST /fax (1-page PDF, FAX_DISABLED)', post, postBare, { throughput: 0.6, p99: 1.5 });
  reportCpu('POST /fax', post, postBare);

  const get = await withCpu(gwPid, () => load(TOTAL, CONCURRENCY, getFrom(gw!.url)));
  const getBare = await withCpu(barePid, () => load(TOTAL, CONCURRENCY, getFrom(bare!.url)));
  report('GET /fax/{id}', get, getBare, { throughput: 0.85 });
  reportCpu('GET /fax/{id}', get, getBare);

  const healthOf = (url: string) => async () => {
    const res = await fetch(`${url}/health`);
    if (res.status !== 200) throw new Error(`GET ${url}/health answered ${res.status}`);
    await res.json();
  };
  await load(WARM_UP, CONCURRENCY, healthOf(gw.url));
  await load(WARM_UP, CONCURRENCY, healthOf(bare.url));
  const health = await withCpu(gwPid, () => load(TOTAL, CONCURRENCY, healthOf(gw!.url)));
  const healthBare = await withCpu(barePid, () => load(TOTAL, CONCURRENCY, healthOf(bare!.url)));
  report('GET /health', health, healthBare, { throughput: 0.8 });
  reportCpu('GET /health', health, healthBare);

  // Peak RSS (VmHWM) of a fresh gateway: its start, then 10 s of POST /fax at 16 connections.
  await gw.stop();
  gw = await startBenchGateway();
  const peakRun = await loadFor(PEAK_SECONDS * 1000, CONCURRENCY, postTo(gw.url, false));
  const gwMemory = gw.memory();
  const peakRunBare = await loadFor(PEAK_SECONDS * 1000, CONCURRENCY, postTo(bare.url, false));
  const bareMemory = bare.memory();
  const rate = (r: typeof peakRun) => ((r.count / r.wallMs) * 1000).toFixed(0);
  console.log(
    `peak RSS, ${PEAK_SECONDS} s of POST /fax at ${CONCURRENCY} connections: gateway ${mb(gwMemory.peak)} (${rate(peakRun)} req/s; RSS now ${mb(gwMemory.rss)}) | bare express ${mb(bareMemory.peak)} (${rate(peakRunBare)} req/s) | ratio ${(gwMemory.peak / bareMemory.peak).toFixed(2)}x (target ratio <= 1.00x: ${gwMemory.peak <= bareMemory.peak ? 'met' : 'not met'})`,
  );
} finally {
  await bare?.stop();
  await gw?.stop();
}
