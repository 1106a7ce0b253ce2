// Footprint: the gateway's resident memory when idle 30 s after start, against a bare express
// process started at the same moment; and start-up time, `node host/bin/start.mjs` (built, a
// new DATA_DIR each time) until the first 200 on GET /health, against a fresh `node -e` with a
// tiny http server timed the same way.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import path from 'node:path';
import { ROOT, freePort, removeDir, tempDir } from '../test/support/gateway.js';
import { startBareExpress, type BareExpress } from './bare-express-process.js';
import { startBenchGateway, type BenchGateway } from './gateway-process.js';
import { trackChild, trackDir } from './leftovers.js';
import { MB, mb } from './process-memory.js';
import { median, ms, sleep } from './stats.js';

const IDLE_SECONDS = 30;
const STARTS = 5;

// --- idle RSS ---------------------------------------------------------------------------------
{
  let gw: BenchGateway | undefined;
  let bare: BareExpress | undefined;
  try {
    const started = Date.now();
    const [g, b] = await Promise.allSettled([startBenchGateway(), startBareExpress('{}')]);
    if (g.status === 'fulfilled') gw = g.value;
    if (b.status === 'fulfilled') bare = b.value;
    if (!gw || !bare) throw g.status === 'rejected' ? g.reason : (b as PromiseRejectedResult).reason;
    await sleep(started + IDLE_SECONDS * 1000 - Date.now());
    const ours = gw.memory();
    const base = bare.memory();
    console.log(
      `RSS idle ${IDLE_SECONDS} s after start: gateway ${mb(ours.rss)} (peak ${mb(ours.peak)}) | bare express ${mb(base.rss)} (peak ${mb(base.peak)}) | ratio ${(ours.rss / base.rss).toFixed(2)}x (target gateway <= 70 MB: ${ours.rss <= 70 * MB ? 'met' : 'not met'})`,
    );
  } finally {
    await Promise.all([gw?.stop(), bare?.stop()]);
  }
}

// --- start-up ---------------------------------------------------------------------------------
const BASELINE = `require('node:http').createServer((q, s) => { s.statusCode = q.url === '/health' ? 200 : 404; s.end('{"status":"ok"}'); }).listen(Number(process.env.PORT), '127.0.0.1');`;

/** One GET /health on a new connection; the status, or 0 when nothing answers yet. */
function probe(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** One GET /health/ready sent now; settles when anything answers it (the early server holds it until the gateway's app is open). */
function answered(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/health/ready', agent: false }, (res) => {
      res.resume();
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Spawns `args`, polls GET /health every 5 ms; milliseconds from spawn to the first 200, and with
 * `served`, to the first answer of the gateway itself (a GET /health/ready sent at that 200).
 */
async function timeToHealthy(args: string[], extraEnv: Record<string, string> = {}, blackBox = false, served?: number[]): Promise<number> {
  const dataDir = tempDir('switchboard-bench-start-');
  const untrackDir = trackDir(dataDir);
  const port = await freePort();
  // Black-box: as a user runs it from the checkout, with only PORT and a new DATA_DIR set, the
  // default log level, and its output read.
  const env = blackBox
    ? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dataDir, PORT: String(port), DATA_DIR: dataDir }
    : {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_API_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dataDir,
        ENV_FILE: path.join(dataDir, 'none.env'),
        LOG_LEVEL: 'warn',
        ...extraEnv,
      };
  const t = performance.now();
  const child = spawn(process.execPath, args, { cwd: blackBox ? ROOT : dataDir, env, stdio: ['ignore', blackBox ? 'pipe' : 'ignore', 'pipe'] });
  child.stdout?.resume();
  const untrackChild = trackChild(child.pid!);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const deadline = t + 60_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before answering: ${err}`);
      if ((await probe(port)) === 200) {
        const healthy = performance.now() - t;
        if (served) {
          await answered(port);
          served.push(performance.now() - t);
        }
        return healthy;
      }
      if (performance.now() > deadline) throw new Error(`${args.join(' ')}: no 200 on /health within 60 s: ${err}`);
      await sleep(5);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    untrackChild();
    removeDir(dataDir);
    untrackDir();
  }
}

const gatewayStarts: number[] = [];
const blackBoxStarts: number[] = [];
const baselineStarts: number[] = [];
const servedStarts: number[] = [];
// Alternated, so a burst of other work on the machine hits both sides alike.
for (let i = 0; i < STARTS; i++) {
  gatewayStarts.push(await timeToHealthy([path.join(ROOT, 'host/bin/start.mjs')], {}, false, servedStarts));
  blackBoxStarts.push(await timeToHealthy(['host/bin/start.mjs'], {}, true));
  baselineStarts.push(await timeToHealthy(['-e', BASELINE]));
}
const ours = median(gatewayStarts);
const base = median(baselineStarts);
console.log(
  `start-up, spawn to first 200 on /health (${STARTS} runs, new DATA_DIR each): node host/bin/start.mjs median ${ms(ours)}, max ${ms(Math.max(...gatewayStarts))} | node -e http server median ${ms(base)}, max ${ms(Math.max(...baselineStarts))} | ratio ${(ours / base).toFixed(1)}x (target gateway <= 200 ms: ${ours <= 200 ? 'met' : 'not met'})`,
);
const blackBox = median(blackBoxStarts);
console.log(
  `start-up, black-box: \`node host/bin/start.mjs\` from the checkout, only PORT and a new DATA_DIR set, default log level: median ${ms(blackBox)}, max ${ms(Math.max(...blackBoxStarts))} | ratio to the node -e server ${(blackBox / base).toFixed(1)}x (target <= 250 ms: ${blackBox <= 250 ? 'met' : 'not met'})`,
);
// /health answers from the moment the port is bound (liveness); the gateway serves requests later.
const served = median(servedStarts);
console.log(
  `start-up, spawn to the gateway's first answer (a GET /health/ready sent at the first 200 on /health, held until the app is open): median ${ms(served)}, max ${ms(Math.max(...servedStarts))} | ratio to the node -e server ${(served / base).toFixed(1)}x`,
);
