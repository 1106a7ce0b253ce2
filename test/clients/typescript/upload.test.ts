import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiError, unwrap } from '../../../clients/typescript/src/index.js';
import { openBrowser, type ConsoleBrowser } from '../../support/browser.js';
import { ROOT } from '../../support/gateway.js';
import { gatewayForSuite, noisePng, SUITE_KEY as KEY } from './client-suite.js';

const NUMBER = '+15550105555';
const suite = gatewayForSuite(test, { MAX_FILE_SIZE_MB: '1' });

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function assertRisingToOne(fractions: number[]): void {
  assert.ok(fractions.length >= 3, `several steps: ${fractions.join(' ')}`);
  for (let i = 1; i < fractions.length; i++) assert.ok(fractions[i]! > fractions[i - 1]!, `increasing: ${fractions.join(' ')}`);
  assert.ok(fractions[0]! > 0);
  assert.is(fractions.at(-1), 1);
}

test('sendFax and prepareFax report upload progress, increasing to 1, and answer as without it', async () => {
  const client = suite.client();
  const image = await noisePng(300); // about 270 KB: several 64 KB chunks
  const fractions: number[] = [];
  const preview = await client.prepareFax({ to: NUMBER, file: image, filename: 'scan.png', onProgress: (f) => fractions.push(f) });
  assertRisingToOne(fractions);
  assert.is(preview.sha256, sha256(image), 'the bytes arrived whole');
  assert.is(preview.pages, 1);

  const sent: number[] = [];
  const job = await client.sendFax({ to: NUMBER, file: new Blob([new Uint8Array(image)]), filename: 'scan.png', cover: { subject: 'Scan' }, idempotencyKey: 'upload-progress-1', onProgress: (f) => sent.push(f) });
  assertRisingToOne(sent);
  assert.is(job.pages, 2, 'the image and the cover page');
  const again = await client.sendFax({ to: NUMBER, file: image, filename: 'scan.png', cover: { subject: 'Scan' }, idempotencyKey: 'upload-progress-1' });
  assert.is(again.id, job.id, 'the same multipart body without progress: the Idempotency-Key matches');
});

test('the approval flow: prepare, a send that expects another number or document is refused, the right one sends once', async () => {
  const client = suite.client();
  const image = await noisePng(120);
  const preview = await client.prepareFax({ to: NUMBER, file: image, filename: 'note.png' });
  assert.match(preview.to, /5555$/);
  assert.not.match(preview.to, /0105555/, 'the number is masked');
  const refusal = async (call: Promise<unknown>): Promise<ApiError> => {
    const error = await call.then(
      () => new Error('expected a refusal'),
      (err: unknown) => err,
    );
    assert.instance(error, ApiError, String(error));
    return error as ApiError;
  };

  const otherNumber = await refusal(client.sendApproved(preview.approval_id, { to: '+15550109999' }));
  assert.equal([otherNumber.status, otherNumber.code], [422, 'approval_mismatch']);
  const otherDocument = await refusal(client.sendApproved(preview.approval_id, { sha256: sha256(randomBytes(8)) }));
  assert.equal([otherDocument.status, otherDocument.code], [422, 'approval_mismatch']);

  const job = await client.sendApproved(preview.approval_id, { to: NUMBER, sha256: preview.sha256 });
  assert.is(job.pages, 1);
  const status = await unwrap(client.GET('/fax/{id}', { params: { path: { id: job.id } } }));
  assert.is(status.id, job.id);
  const used = await refusal(client.sendApproved(preview.approval_id));
  assert.equal([used.status, used.code], [409, 'approval_used']);
  const unknown = await refusal(client.sendApproved('no-such-approval'));
  assert.is(unknown.code, 'approval_unknown');
});

test('in a browser the upload goes by XMLHttpRequest: progress to 1, the key read from sessionStorage on every call, a 413 with the API\'s detail', async () => {
  const dist = path.join(ROOT, 'dist/clients/typescript/src');
  const files: Record<string, string> = { 'openapi-fetch.js': readFileSync(path.join(ROOT, 'node_modules/openapi-fetch/dist/index.mjs'), 'utf8') };
  const page = '<!doctype html><script type="importmap">{"imports":{"openapi-fetch":"/__client/openapi-fetch.js"}}</script><title>client</title>';
  let browser: ConsoleBrowser | undefined;
  try {
    browser = await openBrowser();
    // The compiled client served from the gateway's origin, so its calls are same-origin (baseUrl '').
    await browser.page.route(`${suite.gw.url}/__client/**`, (route) => {
      const name = new URL(route.request().url()).pathname.slice('/__client/'.length);
      if (name === 'index.html') return route.fulfill({ contentType: 'text/html', body: page });
      const body = files[name] ?? readFileSync(path.join(dist, path.basename(name)), 'utf8');
      return route.fulfill({ contentType: 'text/javascript', body });
    });
    const uploads: string[] = [];
    browser.page.on('request', (request) => {
      if (request.url().endsWith('/fax/prepare')) uploads.push(request.resourceType());
    });
    await browser.page.goto(`${suite.gw.url}/__client/index.html`);
    const small = (await noisePng(300)).toString('base64');
    const big = (await noisePng(800)).toString('base64');
    const outcome = await browser.page.evaluate(
      async ({ key, to, small, big }) => {
        const { createSwitchboardClient, ApiError } = await import('/__client/index.js' as string);
        const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const client = createSwitchboardClient({ baseUrl: '', apiKey: () => sessionStorage.getItem('key') });
        const refused = await client.prepareFax({ to, file: bytes(small) }).catch((err: { status: number }) => err.status);
        sessionStorage.setItem('key', key);
        const fractions: number[] = [];
        const preview = await client.prepareFax({ to, file: new Blob([bytes(small)]), filename: 'scan.png', onProgress: (f: number) => fractions.push(f) });
        const tooLarge = await client.prepareFax({ to, file: bytes(big), filename: 'big.png', onProgress: () => {} }).catch((err: InstanceType<typeof ApiError>) => ({ isApiError: err instanceof ApiError, status: err.status, code: err.code, detail: err.detail }));
        return { refused, fractions, sha256: preview.sha256, tooLarge };
      },
      { key: KEY, to: NUMBER, small, big },
    );
    assert.is(outcome.refused, 401, 'no key in sessionStorage yet');
    assert.ok(outcome.fractions.length >= 1 && outcome.fractions.at(-1) === 1, outcome.fractions.join(' '));
    for (let i = 1; i < outcome.fractions.length; i++) assert.ok(outcome.fractions[i]! >= outcome.fractions[i - 1]!);
    assert.is(outcome.sha256, sha256(Buffer.from(small, 'base64')));
    assert.equal(outcome.tooLarge, { isApiError: true, status: 413, code: 'payload_too_large', detail: outcome.tooLarge.detail });
    assert.match(outcome.tooLarge.detail, /1 MB/);
    assert.equal(uploads, ['fetch', 'xhr', 'xhr'], 'fetch without progress, XMLHttpRequest with it');
    assert.equal(browser.problems, []);
  } finally {
    await browser?.close();
  }
});

test.run();
