// Status webhooks' cost on sending: two gateways as their own processes sending through fax-sim,
// one with a subscription to every job event (each POST /fax then fires queued, sending and
// delivered to a loopback receiver, signed, through the outbox) and one without, loaded in
// alternating rounds by the same client at 16 connections. Per round: POST throughput and each
// server's CPU per sent fax, counted until every job of the round has ended and, with webhooks
// on, every delivery was made (the work the events add, not only the 202), less what its
// background loops burn idle over the same time. Budget (issue 40):
// at most 5% below the gateway without webhooks.
import { loadavg } from 'node:os';
import { startAlertReceiver } from '../test/fakes/alert-receiver.js';
import { makePdf } from '../test/fakes/fax-document-server.js';
import { postFax, until } from '../test/support/gateway.js';
import { startBenchGateway, type BenchGateway } from './gateway-process.js';
import { cpuMsOf } from './process-cpu.js';
import { load } from './stats.js';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 600);
const WARM_UP = Number(process.env.BENCH_WARMUP ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;
const KEY = 'bench-status-webhooks-key-0001';
const EVENTS = ['fax.queued', 'fax.sending', 'fax.delivered', 'fax.failed'];

const pdf = await makePdf(1);
const receiver = await startAlertReceiver({ tls: false });
const env = {
  FAX_DISABLED: 'false',
  FAX_BACKEND: 'fax-sim',
  FAX_SIM_DELAY_MS: '0',
  FAX_SIM_SECRET: 'bench-fax-sim-secret-000000000001',
  FAX_DISPATCH_POLL_MS: '50',
  API_KEY: KEY,
  ALERT_ALLOW_HTTP_LOOPBACK: 'true',
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_DELIVERY_POLL_MS: '50',
  // Profiling: e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` for both gateways.
  ...(process.env.BENCH_GATEWAY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_GATEWAY_NODE_OPTIONS } : {}),
};
const headers = { 'x-api-key': KEY };
const post = (url: string) => async () => {
  const res = await postFax(url, '+15550104444', pdf, headers);
  if (res.status !== 202) throw new Error(`POST /fax answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};
const count = async (url: string, status: string) => {
  const res = await fetch(`${url}/admin/db-status`, { headers });
  const body = (await res.json()) as { jobs_by_status?: Record<string, number> };
  return body.jobs_by_status?.[status] ?? 0;
};

let off: BenchGateway | undefined;
let on: BenchGateway | undefined;
try {
  off = await startBenchGateway(env);
  on = await startBenchGateway(env);
  const made = await fetch(`${on.url}/webhooks/subscriptions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${receiver.url}?bench`, events: EVENTS }) });
  if (made.status !== 201) throw new Error(`subscription: ${made.status} ${await made.text()}`);
  let sent = { off: 0, on: 0 };
  const settled = async (which: 'off' | 'on', gw: BenchGateway) => {
    await until(async () => (await count(gw.url, 'SUCCESS')) >= sent[which], 300_000, 50);
    if (which === 'on') await until(() => receiver.received.length >= sent.on * 3, 300_000, 50);
  };
  for (const [which, gw] of [['off', off], ['on', on]] as const) {
    await load(WARM_UP, CONCURRENCY, post(gw.url));
    sent[which] += WARM_UP;
    await settled(which, gw);
  }
  // The background loops' own CPU (dispatch and delivery polls), per second while idle: taken out
  // of each round's figure, since the round with webhooks waits longer for its last deliveries.
  const idleRate = { off: 0, on: 0 };
  for (const [which, gw] of [['off', off], ['on', on]] as const) {
    const [cpu, t] = [cpuMsOf(gw.pid), performance.now()];
    await new Promise((r) => setTimeout(r, 3000));
    idleRate[which] = (cpuMsOf(gw.pid) - cpu) / (performance.now() - t);
  }
  const figures = { off: [] as number[][], on: [] as number[][] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const which of order) {
      const gw = which === 'off' ? off : on;
      const [cpu, t] = [cpuMsOf(gw.pid), performance.now()];
      const run = await load(TOTAL, CONCURRENCY, post(gw.url));
      sent = { ...sent, [which]: sent[which] + TOTAL };
      await settled(which, gw);
      const work = cpuMsOf(gw.pid) - cpu - idleRate[which] * (performance.now() - t);
      figures[which].push([(TOTAL / run.wallMs) * 1000, work / TOTAL]);
    }
    const [a, b] = [figures.off.at(-1)!, figures.on.at(-1)!];
    console.log(
      `round ${round} (load average ${loadavg()[0]!.toFixed(1)}): webhooks off ${a[0]!.toFixed(0)} POST/s, CPU ${a[1]!.toFixed(3)} ms per sent fax | on (3 deliveries a fax) ${b[0]!.toFixed(0)} POST/s, CPU ${b[1]!.toFixed(3)} ms | throughput ratio ${(b[0]! / a[0]!).toFixed(2)}, CPU ratio ${(b[1]! / a[1]!).toFixed(2)}x`,
    );
  }
  const sum = (rows: number[][], i: number) => rows.reduce((s, r) => s + r[i]!, 0);
  console.log(`all rounds: POST throughput ratio on/off ${(sum(figures.on, 0) / sum(figures.off, 0)).toFixed(2)} (budget >= 0.95), CPU per sent fax ratio ${(sum(figures.on, 1) / sum(figures.off, 1)).toFixed(2)}x`);
} finally {
  await Promise.all([off?.stop(), on?.stop()]);
  await receiver.close();
}
