// Fax API throughput and p99 latency on the embedded default (SQLite, local storage,
// FAX_DISABLED), each as a ratio against a bare express route answering the same JSON size.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { makePdf } from '../test/fakes/fax-document-server.js';
import { postFax, startGateway } from '../test/support/gateway.js';
import { load, percentile, ms } from './stats.js';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 1000);
const CONCURRENCY = 16;

const gw = await startGateway({ FAX_DISABLED: 'true', LOG_LEVEL: 'warn', MAX_REQUESTS_PER_MINUTE: '100000000' });
const pdf = await makePdf(1);
const sample = await (await postFax(gw.url, '+15550104444', pdf)).json();
const body = JSON.stringify(sample);

const bare = express();
bare.post('/fax', (req, res) => {
  req.resume();
  req.on('end', () => res.status(202).type('json').send(body));
});
bare.get('/fax/:id', (_req, res) => void res.type('json').send(body));
const server = await new Promise<ReturnType<typeof bare.listen>>((resolve) => {
  const s = bare.listen(0, '127.0.0.1', () => resolve(s));
});
const bareUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function report(name: string, ours: Awaited<ReturnType<typeof load>>, base: Awaited<ReturnType<typeof load>>) {
  const rps = (r: typeof ours) => (TOTAL / r.wallMs) * 1000;
  console.log(
    `${name}: ${rps(ours).toFixed(0)} req/s, p99 ${ms(percentile(ours.latencies, 99))} | bare express ${rps(base).toFixed(0)} req/s, p99 ${ms(percentile(base.latencies, 99))} | throughput ratio ${(rps(ours) / rps(base)).toFixed(3)}, p99 ratio ${(percentile(ours.latencies, 99) / percentile(base.latencies, 99)).toFixed(2)}x`,
  );
}

const ids: string[] = [];
const post = await load(TOTAL, CONCURRENCY, async () => {
  const res = await postFax(gw.url, '+15550104444', pdf);
  if (res.status !== 202) throw new Error(`POST /fax answered ${res.status}`);
  ids.push((await res.json()).id);
});
const postBare = await load(TOTAL, CONCURRENCY, async () => {
  const res = await postFax(bareUrl, '+15550104444', pdf);
  await res.arrayBuffer();
});
report('POST /fax (1-page PDF, FAX_DISABLED)', post, postBare);

const get = await load(TOTAL, CONCURRENCY, async (i) => {
  const res = await fetch(`${gw.url}/fax/${ids[i % ids.length]}`);
  if (res.status !== 200) throw new Error(`GET /fax answered ${res.status}`);
  await res.arrayBuffer();
});
const getBare = await load(TOTAL, CONCURRENCY, async () => {
  await (await fetch(`${bareUrl}/fax/x`)).arrayBuffer();
});
report('GET /fax/{id}', get, getBare);

server.close();
await gw.close();
