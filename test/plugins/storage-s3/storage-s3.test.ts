import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { conformance, startPlugin } from 'switchboard/sdk/testing';
import storageS3 from '../../../plugins/storage-s3/index.js';
import { freePort } from '../../support/gateway.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startDroppingProxy, startS3Server, type S3Server } from '../../support/s3-server.js';

let s3: S3Server;
test.before(async () => {
  s3 = await startS3Server(['artifacts']);
});
test.after(async () => {
  await s3.close();
});

const env = (endpoint: string, extra: Record<string, string> = {}) => ({
  S3_BUCKET: 'artifacts',
  S3_ENDPOINT_URL: endpoint,
  S3_ACCESS_KEY_ID,
  S3_SECRET_ACCESS_KEY,
  ...extra,
});

// The endpoint is read when each case starts the plugin, after before() started the server.
for (const c of conformance.storage({
  plugin: storageS3,
  get env() {
    return env(s3.url, { S3_PREFIX: 'conformance-run/' });
  },
})) test(c.name, c.run);

/** `size` bytes of a repeating pattern, produced chunk by chunk (never whole in memory). */
function patternStream(size: number, chunk = 64 * 1024): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(chunk, size - sent);
      const buf = Buffer.alloc(n);
      for (let i = 0; i < n; i++) buf[i] = (sent + i) % 251;
      sent += n;
      this.push(buf);
    },
  });
}

async function sha256(stream: AsyncIterable<unknown>): Promise<{ hex: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const c of stream) {
    hash.update(c as Buffer);
    bytes += (c as Buffer).length;
  }
  return { hex: hash.digest('hex'), bytes };
}

test('a 20 MB streamed put goes up in parts and streams back byte for byte', async () => {
  const size = 20 * 1024 * 1024;
  const proxy = await startDroppingProxy(s3.url, () => false);
  const started = await startPlugin(storageS3, { env: env(proxy.url, { S3_PREFIX: 'big/' }) });
  try {
    const storage = started.instance.providers.storage!;
    const entry = await storage.put('fax/j-big/document.tiff', patternStream(size));
    assert.is(entry.size, size);
    // Multipart: more than one UploadPart request, then the completion.
    const parts = proxy.requests.filter((r) => r.startsWith('PUT ') && r.includes('partNumber='));
    assert.ok(parts.length >= 2, `uploaded in ${parts.length} part(s)`);
    assert.ok(proxy.requests.some((r) => r.startsWith('POST ') && r.includes('uploadId=')), 'completed the multipart upload');
    const expected = await sha256(patternStream(size));
    const got = await sha256(await storage.stream('fax/j-big/document.tiff'));
    assert.equal(got, expected);
    assert.equal((await storage.list('fax/')).map((e) => [e.key, e.size]), [['fax/j-big/document.tiff', size]]);
  } finally {
    await started.stop();
    await proxy.close();
  }
});

test('a server failing mid-upload leaves no object: the put fails and the upload is aborted', async () => {
  // The second part's connection is dropped (and so are the SDK's retries of it).
  const proxy = await startDroppingProxy(s3.url, (method, url) => method === 'PUT' && url.includes('partNumber=2'));
  const started = await startPlugin(storageS3, { env: env(proxy.url, { S3_PREFIX: 'failing/' }) });
  try {
    const storage = started.instance.providers.storage!;
    let failure: unknown;
    await storage.put('fax/j-cut/document.tiff', patternStream(20 * 1024 * 1024)).catch((err) => (failure = err));
    assert.ok(failure instanceof Error, 'the put fails');
    assert.ok(proxy.requests.some((r) => r.startsWith('PUT ') && r.includes('partNumber=2')), 'the second part was attempted');
    assert.not.ok(proxy.requests.some((r) => r.startsWith('POST ') && r.includes('uploadId=')), 'never completed');
    assert.ok(proxy.requests.some((r) => r.startsWith('DELETE ') && r.includes('uploadId=')), 'AbortMultipartUpload was sent');
    assert.is(await storage.exists('fax/j-cut/document.tiff'), false);
    assert.equal(await storage.list('fax/'), []);
  } finally {
    await started.stop();
    await proxy.close();
  }
});

test('the prefix keeps gateways apart; health reaches the bucket; a missing bucket is unhealthy', async () => {
  const a = await startPlugin(storageS3, { env: env(s3.url, { S3_PREFIX: 'gw-a/' }) });
  // Without its trailing slash the prefix gets one.
  const b = await startPlugin(storageS3, { env: env(s3.url, { S3_PREFIX: 'gw-b' }) });
  const root = await startPlugin(storageS3, { env: env(s3.url) });
  const missing = await startPlugin(storageS3, { env: env(s3.url, { S3_BUCKET: 'no-such-bucket' }) });
  try {
    await a.instance.providers.storage!.put('k.bin', Buffer.from('a'));
    assert.is(await b.instance.providers.storage!.exists('k.bin'), false);
    await b.instance.providers.storage!.put('k.bin', Buffer.from('b'));
    assert.equal((await a.instance.providers.storage!.list()).map((e) => e.key), ['k.bin']);
    assert.equal((await root.instance.providers.storage!.list('gw-')).map((e) => e.key), ['gw-a/k.bin', 'gw-b/k.bin']);
    assert.ok((await a.instance.health!()).ok);
    const health = await missing.instance.health!();
    assert.is(health.ok, false);
    assert.match(String(health.detail), /no-such-bucket/);
  } finally {
    await a.stop();
    await b.stop();
    await root.stop();
    await missing.stop();
  }
});

// s3rver checks the access key id of a SigV4 request, not its signature.
test('the credentials reach the server: an unknown access key is refused', async () => {
  const started = await startPlugin(storageS3, { env: env(s3.url, { S3_ACCESS_KEY_ID: 'AKIAUNKNOWNKEY' }) });
  try {
    let failure: unknown;
    await started.instance.providers.storage!.put('x.bin', Buffer.from('x')).catch((err) => (failure = err));
    assert.match(String((failure as Error)?.name), /InvalidAccessKeyId/, String(failure));
  } finally {
    await started.stop();
  }
});

test('an endpoint outside the egress list is refused before any request', async () => {
  const started = await startPlugin(storageS3, { env: env(s3.url), egress: ['s3.example.test'] });
  try {
    let failure: unknown;
    await started.instance.providers.storage!.put('x.bin', Buffer.from('x')).catch((err) => (failure = err));
    assert.match(String((failure as Error)?.message), /egress|not allowed|denied/i);
  } finally {
    await started.stop();
  }
});

test('the AWS SDK is loaded with the first S3 request, not when the plugin starts', async () => {
  // A fresh process: this one loaded the SDK in the cases above. The endpoint is a port listened
  // on, then closed: the request fails fast instead of reaching whatever may listen on a fixed port.
  const closedPort = await freePort();
  const script = `
    import { createRequire } from 'node:module';
    const { startPlugin } = await import(${JSON.stringify(import.meta.resolve('switchboard/sdk/testing'))});
    const plugin = (await import(${JSON.stringify(import.meta.resolve('../../../plugins/storage-s3/index.js'))})).default;
    const cache = createRequire(import.meta.url).cache;
    const loaded = () => Object.keys(cache).some((f) => f.includes('@aws-sdk/client-s3'));
    const started = await startPlugin(plugin, { env: { S3_BUCKET: 'b', S3_ENDPOINT_URL: 'http://127.0.0.1:${closedPort}', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' } });
    const atStart = loaded();
    await started.instance.providers.storage.exists('k.bin').catch(() => {});
    const afterRequest = loaded();
    await started.stop();
    console.log(JSON.stringify({ atStart, afterRequest }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--input-type=module', '-e', script]);
  assert.equal(JSON.parse(stdout.trim().split('\n').pop()!), { atStart: false, afterRequest: true });
});

test.run();
