// Soak: the gateway as its own process (SQLite, FAX_DISABLED) under mixed traffic for 5 minutes
// after a 30 s warm-up, its resident memory sampled every second and printed every 10 s. At the
// end: RSS at warm-up end and at the end, the maximum, and the least-squares slope over the
// samples after warm-up ("flat" below 1 MB/min). Not part of a plain `npm run bench`: run it
// with `npm run bench -- soak`. SOAK_SECONDS (default 300), SOAK_WARMUP_SECONDS (30) and
// SOAK_CONCURRENCY (12) shorten or change a run.
import { makePdf } from '../test/fakes/fax-document-server.js';
import { postFax } from '../test/support/gateway.js';
import { startBareExpress, type BareExpress } from './bare-express-process.js';
import { startBenchGateway, type BenchGateway } from './gateway-process.js';
import { MB, mb } from './process-memory.js';
import { slope } from './stats.js';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? 30);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 12);
const PRINT_EVERY_S = 10;
const NUMBER = '+15550104444';
// Ids of recent jobs for GET /fax/{id}; bounded so the client's own memory stays flat too.
const KEEP_IDS = 1000;

/** One request of the mix, chosen by its index; resolves with whether the status was the expected one. */
type Step = (url: string) => Promise<boolean>;

const pdf = await makePdf(1);
const ids: string[] = [];
const mix: { name: string; step: Step }[] = [
  {
    name: 'POST /fax',
    step: async (url) => {
      const res = await postFax(url, NUMBER, pdf);
      if (res.status !== 202) {
        await res.arrayBuffer();
        return false;
      }
      const { id } = (await res.json()) as { id: string };
      ids.push(id);
      if (ids.length > KEEP_IDS) ids.splice(0, ids.length - KEEP_IDS);
      return true;
    },
  },
  {
    name: 'GET /fax/{id}',
    step: async (url) => {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const res = await fetch(`${url}/fax/${id}`);
      await res.arrayBuffer();
      return res.status === 200;
    },
  },
  {
    name: 'GET /health',
    step: async (url) => {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      return res.status === 200;
    },
  },
  {
    // The job list is an admin route; a loopback caller with no key configured may read it.
    name: 'GET /admin/fax-jobs',
    step: async (url) => {
      const res = await fetch(`${url}/admin/fax-jobs?limit=20`);
      await res.arrayBuffer();
      return res.status === 200;
    },
  },
  {
    name: 'POST /fax, bad number (400)',
    step: async (url) => {
      const res = await postFax(url, 'not-a-number', pdf);
      await res.arrayBuffer();
      return res.status === 400;
    },
  },
  {
    name: 'GET /fax/{unknown} (404)',
    step: async (url) => {
      const res = await fetch(`${url}/fax/no-such-job-${Math.floor(Math.random() * 1e9)}`);
      await res.arrayBuffer();
      return res.status === 404;
    },
  },
];
// Out of every 20 requests: 8 uploads, 6 reads, 2 health checks, 2 list pages, 2 client errors.
const SCHEDULE = [0, 1, 0, 1, 2, 0, 1, 3, 0, 4, 0, 1, 0, 2, 1, 0, 3, 1, 0, 5];

const minutes = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

let gw: BenchGateway | undefined;
let bare: BareExpress | undefined;
let sampler: NodeJS.Timeout | undefined;
try {
  gw = await startBenchGateway();
  bare = await startBareExpress('{}');
  const url = gw.url;
  // The first upload, so GET /fax/{id} always has an id to read.
  if (!(await mix[0]!.step(url))) throw new Error('the first POST /fax was not accepted');
  console.log(
    `soak: ${WARMUP_SECONDS} s warm-up, then ${SOAK_SECONDS} s of mixed traffic at ${CONCURRENCY} concurrent (per 20 requests: 8 POST /fax, 6 GET /fax/{id}, 2 GET /health, 2 GET /admin/fax-jobs, 1 bad-number POST, 1 unknown-id GET); gateway RSS at start ${mb(gw.memory().rss)}`,
  );

  const counts = mix.map(() => ({ done: 0, unexpected: 0 }));
  let done = 0;
  let failure: Error | undefined;
  const samples: { t: number; rss: number }[] = [];
  const started = performance.now();
  const total = WARMUP_SECONDS + SOAK_SECONDS;
  let printedAt = 0;
  let doneAtLastPrint = 0;
  const print = (t: number, rss: number) => {
    const rate = (done - doneAtLastPrint) / (t - printedAt);
    printedAt = t;
    doneAtLastPrint = done;
    console.log(`  ${minutes(t)}  RSS ${mb(rss)}  requests ${done} (${rate.toFixed(0)}/s)${t < WARMUP_SECONDS + 1 ? '  warm-up' : ''}`);
  };
  sampler = setInterval(() => {
    const t = (performance.now() - started) / 1000;
    let rss: number;
    try {
      rss = gw!.memory().rss;
    } catch {
      return; // The gateway has exited; the request loop reports it.
    }
    samples.push({ t, rss });
    if (Math.floor(t / PRINT_EVERY_S) > Math.floor(printedAt / PRINT_EVERY_S)) print(t, rss);
  }, 1000);

  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (!failure && performance.now() - started < total * 1000) {
        const kind = SCHEDULE[next++ % SCHEDULE.length]!;
        try {
          const ok = await mix[kind]!.step(url);
          counts[kind]!.done++;
          if (!ok) counts[kind]!.unexpected++;
          done++;
        } catch (err) {
          // A refused or reset connection: the gateway is gone or broken; stop the run.
          failure ??= new Error(`${mix[kind]!.name} failed: ${(err as Error).message}${(err as Error).cause ? ` (${((err as Error).cause as Error).message})` : ''}${gw!.gateway.alive() ? '' : ` (gateway exited)\n${gw!.gateway.output()}`}`);
        }
      }
    }),
  );
  clearInterval(sampler);
  if (failure) throw failure;
  const end = (performance.now() - started) / 1000;
  const endRss = gw.memory().rss;
  samples.push({ t: end, rss: endRss });
  print(end, endRss);

  const after = samples.filter((s) => s.t >= WARMUP_SECONDS);
  const atWarmUpEnd = after[0] ?? samples[samples.length - 1]!;
  const last = samples[samples.length - 1]!;
  const max = Math.max(...samples.map((s) => s.rss));
  const minAfter = Math.min(...after.map((s) => s.rss));
  const perMinute = slope(after.map((s) => ({ x: s.t / 60, y: s.rss / MB })));
  const verdict = Math.abs(perMinute) < 1 ? 'flat' : perMinute > 0 ? 'growing' : 'shrinking';
  // The lowest sample of each minute after warm-up: the floor under the collector's sawtooth,
  // which shows retained growth more plainly than single samples.
  const floors: number[] = [];
  for (const sample of after) {
    const minute = Math.floor((sample.t - WARMUP_SECONDS) / 60);
    floors[minute] = Math.min(floors[minute] ?? Infinity, sample.rss);
  }
  console.log(`requests: ${done} in ${minutes(total)} (${counts.map((c, i) => `${mix[i]!.name} ${c.done}${c.unexpected ? `, ${c.unexpected} unexpected status` : ''}`).join('; ')})`);
  console.log(
    `RSS: at warm-up end ${mb(atWarmUpEnd.rss)}, at end ${mb(last.rss)}, max ${mb(max)}, min after warm-up ${mb(minAfter)} (peak VmHWM ${mb(gw.memory().peak)}); slope after warm-up ${perMinute.toFixed(2)} MB/min over ${after.length} samples: ${verdict} | bare express idle RSS ${mb(bare.memory().rss)}`,
  );
  console.log(`lowest RSS in each minute after warm-up: ${floors.map((f) => mb(f)).join(', ')}`);
} finally {
  if (sampler) clearInterval(sampler);
  await bare?.stop();
  await gw?.stop();
}
