import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../support/gateway.js';
import { pdfPageCount } from '../../../fakes/hosted-fax-fake-kit.js';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { startRecordingProvider, type RecordingProvider } from './recording-provider.js';

// The registry's faxpipe-json manifest dropped in under another id; its egress (settings:base_url) follows
// FAXPIPE_BASE_URL to the loopback fake.
const ID = 'faxpipe-e2e';

let gw: TestGateway;
let provider: RecordingProvider;
let pluginsDir: string;
/** What the provider got when it fetched the document URL it was handed. */
let fetched: { status: number; pages?: number } | undefined;

test.before(async () => {
  provider = await startRecordingProvider();
  provider.answer((req, res) => {
    const send = (status: number, body: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'POST' && req.path === '/v1/faxes') {
      // Like a real provider: download the document from the URL in the request, then accept.
      const documentUrl = new URL(JSON.parse(req.body.toString('utf8')).document.url);
      void fetch(`${gw.url}${documentUrl.pathname}${documentUrl.search}`)
        .then(async (r) => {
          fetched = { status: r.status, ...(r.ok ? { pages: await pdfPageCount(Buffer.from(await r.arrayBuffer())) } : {}) };
          send(201, { data: { id: 'fp-1001', status: 'queued' } });
        })
        .catch(() => send(500, { error: { message: 'download failed' } }));
      return;
    }
    if (req.method === 'GET' && req.path === '/v1/faxes/fp-1001') return send(200, { data: { status: 'delivered', page_count: 1 } });
    send(404, { error: { message: 'no route' } });
  });
  pluginsDir = tempDir('switchboard-http-fax-e2e-');
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8'));
  writeFileSync(path.join(pluginsDir, `${ID}.json`), JSON.stringify({ ...manifest, id: ID }, null, 2));
  gw = await startGateway({
    PLUGINS_PATH: pluginsDir,
    FAX_BACKEND: ID,
    FAXPIPE_BASE_URL: `${provider.origin}/v1`,
    FAXPIPE_API_TOKEN: 'e2e-token',
    FAXPIPE_FROM: '+15550009999',
    FAX_STATUS_POLL_MS: '100',
    FAX_RECONCILE_INTERVAL_MS: '50',
  });
});
test.after(async () => {
  await gw?.close();
  await provider.close();
  removeDir(pluginsDir);
});

test('a fax posted to /fax goes out through the manifest provider and ends SUCCESS from its status action', async () => {
  const plugin = await until(async () => {
    const list = await json<{ plugins: Array<{ id: string; state: string; last_error: string | null }> }>(await fetch(`${gw.url}/plugins`));
    const found = list.plugins.find((p) => p.id === ID);
    return found?.state === 'active' ? found : undefined;
  }, 5000).catch(async (err: Error) => {
    const list = await json(await fetch(`${gw.url}/plugins`));
    throw new Error(`${ID} not active: ${JSON.stringify(list.plugins.find((p: { id: string }) => p.id === ID))} (${err.message})`);
  });
  assert.is(plugin.state, 'active');

  const form = new FormData();
  form.append('to', '+15551234567');
  form.append('file', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'letter.pdf');
  const posted = await fetch(`${gw.url}/fax`, { method: 'POST', body: form, signal: AbortSignal.timeout(15_000) });
  const job = await json(posted);
  assert.is(posted.status, 202, JSON.stringify(job));
  assert.is(job.backend, ID);

  const done = await until(async () => {
    const current = await json(await fetch(`${gw.url}/fax/${job.id}`));
    return current.status === 'SUCCESS' || current.status === 'FAILED' ? current : undefined;
  }, 10_000);
  assert.is(done.status, 'SUCCESS', JSON.stringify(done));
  assert.is(done.provider_sid, 'fp-1001');
  assert.is(done.pages, 1);

  const sends = provider.requests.filter((r) => r.method === 'POST');
  assert.is(sends.length, 1, 'sent once');
  const sent = sends[0]!;
  assert.is(sent.headers.authorization, 'Bearer e2e-token');
  assert.is(sent.headers['idempotency-key'], job.id);
  const body = JSON.parse(sent.body.toString('utf8'));
  assert.equal(Object.keys(body), ['to', 'from', 'document', 'client_reference']);
  assert.is(body.to, '+15551234567');
  assert.is(body.from, '+15550009999');
  assert.is(body.client_reference, job.id);
  assert.match(body.document.url, new RegExp(`/fax/${job.id}/pdf\\?token=`));
  assert.equal(fetched, { status: 200, pages: 1 }, 'the provider downloaded the PDF by its tokenized URL');
  assert.ok(provider.requests.some((r) => r.method === 'GET' && r.path === '/v1/faxes/fp-1001'), 'the status action was polled');
});

test.run();
