// Group commit of POST /fax: two gateways as their own processes, one with FAX_GROUP_COMMIT_MS=0
// (each submit stores alone: the baseline) and one with the default wait, loaded in alternating
// rounds by the same client at 16 connections; throughput, p99 and each server's CPU per request,
// with the load average beside them (the figures are ratios within one run).
import { loadavg } from 'node:os';
import { makePdf } from '../test/fakes/fax-document-server.js';
import { postFax } from '../test/support/gateway.js';
import { startBenchGateway, type BenchGateway } from './gateway-process.js';
import { cpuMsOf } from './process-cpu.js';
import { load, percentile, ms } from './stats.js';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARM_UP = Number(process.env.BENCH_WARMUP ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;

const pdf = await makePdf(1);
const post = (url: string) => async () => {
  const res = await postFax(url, '+15550104444', pdf);
  if (res.status !== 202) throw new Error(`POST /fax answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};

let off: BenchGateway | undefined;
let on: BenchGateway | undefined;
try {
  off = await startBenchGateway({ FAX_GROUP_COMMIT_MS: '0' });
  on = await startBenchGateway();
  for (const gw of [off, on]) await load(WARM_UP, CONCURRENCY, post(gw.url));
  const figures = { off: [] as number[][], on: [] as number[][] };
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which goes first, so neither always meets the machine in the same state.
    const order = round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const which of order) {
      const gw = which === 'off' ? off : on;
      const cpu = cpuMsOf(gw.pid);
      const run = await load(TOTAL, CONCURRENCY, post(gw.url));
      figures[which].push([(TOTAL / run.wallMs) * 1000, percentile(run.latencies, 99), (cpuMsOf(gw.pid) - cpu) / TOTAL]);
    }
    const [a, b] = [figures.off.at(-1)!, figures.on.at(-1)!];
    console.log(
      `round ${round} (load average ${loadavg()[0]!.toFixed(1)}): group commit off ${a[0]!.toFixed(0)} req/s, p99 ${ms(a[1]!)}, CPU ${a[2]!.toFixed(3)} ms/req | on (default wait) ${b[0]!.toFixed(0)} req/s, p99 ${ms(b[1]!)}, CPU ${b[2]!.toFixed(3)} ms/req | throughput ratio ${(b[0]! / a[0]!).toFixed(2)}, CPU ratio ${(b[2]! / a[2]!).toFixed(2)}x`,
    );
  }
  const sum = (rows: number[][], i: number) => rows.reduce((s, r) => s + r[i]!, 0);
  console.log(
    `all rounds: throughput ratio on/off ${(sum(figures.on, 0) / sum(figures.off, 0)).toFixed(2)}, CPU per request ratio ${(sum(figures.on, 2) / sum(figures.off, 2)).toFixed(2)}x`,
  );
} finally {
  await Promise.all([off?.stop(), on?.stop()]);
}
