// Reload latency seen from outside: a gateway process (`node dist/host/main.js`, as the fax-api
// bench runs it) with a plugin folder on PLUGINS_PATH; a new manifest is written (atomic rename)
// and GET /plugins polled until it shows the new version active. Everything is on the clock: the
// file event, the watcher's hold-still wait and debounce, the new generation's build and start,
// and the HTTP answer. Baseline: the same poll loop against the same gateway with nothing
// changed (what one poll costs, the resolution of the figure).
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, baseManifest, removeDir, tempDir } from '../test/support/gateway.js';
import { startBenchGateway, type BenchGateway } from './gateway-process.js';
import { percentile, ms } from './stats.js';

const WRITES = Number(process.env.BENCH_RELOADS ?? 20);
const ID = 'bench-echo';

const dir = tempDir('switchboard-bench-reload-');
const folder = path.join(dir, ID);
mkdirSync(folder, { recursive: true });
const compiled = path.join(ROOT, 'dist/test/fixtures/plugins/echo-retrieval/index.js');
writeFileSync(path.join(folder, 'entry.mjs'), `export { default } from ${JSON.stringify(pathToFileURL(compiled).href)};\n`);
const write = (version: string) => {
  const file = path.join(folder, 'manifest.json');
  writeFileSync(`${file}.tmp`, JSON.stringify({ ...baseManifest(ID), entry: 'entry.mjs', version }));
  renameSync(`${file}.tmp`, file);
};

/** The plugin's version once it is active, from GET /plugins. */
async function activeVersion(url: string): Promise<string | undefined> {
  const res = await fetch(`${url}/plugins`);
  const { plugins } = (await res.json()) as { plugins: Array<{ id: string; state: string; version: string | null }> };
  const p = plugins.find((x) => x.id === ID);
  return p?.state === 'active' ? (p.version ?? undefined) : undefined;
}

let gw: BenchGateway | undefined;
try {
  write('1.0.0');
  gw = await startBenchGateway({ PLUGINS_PATH: dir });
  const started = performance.now();
  while ((await activeVersion(gw.url)) !== '1.0.0') if (performance.now() - started > 30_000) throw new Error('bench plugin never active');
  const polls: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await activeVersion(gw.url);
    polls.push(performance.now() - t);
  }
  const samples: number[] = [];
  for (let i = 1; i <= WRITES; i++) {
    const version = `1.0.${i}`;
    const t = performance.now();
    write(version);
    while ((await activeVersion(gw.url)) !== version) if (performance.now() - t > 10_000) throw new Error(`${version} never active`);
    samples.push(performance.now() - t);
  }
  const p95 = percentile(samples, 95);
  console.log(
    `manifest written -> active in GET /plugins, ${samples.length} writes (load average ${loadavg()[0]!.toFixed(1)}): median ${ms(percentile(samples, 50))}, p95 ${ms(p95)}, max ${ms(Math.max(...samples))} (target p95 <= 30 ms: ${p95 <= 30 ? 'met' : 'not met'}) | one GET /plugins with nothing changed: median ${ms(percentile(polls, 50))}, p95 ${ms(percentile(polls, 95))}`,
  );
} finally {
  await gw?.stop();
  removeDir(dir);
}
