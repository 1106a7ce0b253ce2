// The baseline server of the HTTP benchmarks, run as its own process like the gateway: a bare
// express app answering POST /fax (body drained, then 202) and GET /fax/:id with the JSON the
// gateway answered (env BARE_BODY), and GET /health with 200. It listens on PORT (0: any free
// port) on 127.0.0.1 and prints {"port": n} as its first line of output.
import express from 'express';
import type { AddressInfo } from 'node:net';

const body = process.env.BARE_BODY ?? '{}';
const app = express();
app.post('/fax', (req, res) => {
  req.resume();
  req.on('end', () => res.status(202).type('json').send(body));
});
app.get('/fax/:id', (_req, res) => void res.type('json').send(body));
app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
