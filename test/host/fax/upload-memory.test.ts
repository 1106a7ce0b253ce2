import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import path from 'node:path';
import { ROOT, postFax, removeDir, tempDir } from '../../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../../support/child-gateway.js';

let gateway: ChildGateway;
// Frequent collection makes peak RSS show what the gateway holds, not garbage not yet collected.
const MEASURED = `--expose-gc --require ${path.join(ROOT, 'test/support/frequent-gc.cjs')}`;
let dataDir: string;

test.before(async () => {
  dataDir = tempDir();
  gateway = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: `${dataDir}/none.env`, FAX_DISABLED: 'true', NODE_OPTIONS: MEASURED });
});
test.after(async () => {
  await gateway.kill('SIGTERM');
  removeDir(dataDir);
});

/** Streams a multipart upload of `bytes` without ever holding it, as a client on a slow link would. */
function streamUpload(url: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const boundary = 'memBOUNDARY';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n+15550103333\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const req = request(`${url}/fax`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + bytes + tail.length) },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    req.write(head);
    const chunk = Buffer.alloc(64 * 1024, 'c');
    let sent = 0;
    const pump = () => {
      while (sent < bytes && !answered) {
        const n = Math.min(chunk.length, bytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

test('a 10 MB + 1 byte upload gets 413 and the gateway does not hold it in memory', async () => {
  // Warm up the upload path so first-use allocations are not counted.
  assert.is((await postFax(gateway.url, '+15550103333', 'warm up')).status, 202);
  const before = gateway.peakRss();
  const limit = 10 * 1024 * 1024;
  assert.is(await streamUpload(gateway.url, limit + 1), 413);
  const after = gateway.peakRss();
  const grown = after - before;
  assert.ok(grown < limit, `peak RSS grew by ${(grown / 1024 / 1024).toFixed(1)} MB for a ${limit / 1024 / 1024} MB upload`);
});

test('memory stays flat as uploads grow: a 60 MB + 1 byte upload against a 60 MB limit', async () => {
  const big = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: `${dataDir}/none.env`, FAX_DISABLED: 'true', MAX_FILE_SIZE_MB: '60', NODE_OPTIONS: MEASURED });
  try {
    assert.is((await postFax(big.url, '+15550103333', 'warm up')).status, 202);
    const before = big.peakRss();
    const limit = 60 * 1024 * 1024;
    assert.is(await streamUpload(big.url, limit + 1), 413);
    const grown = big.peakRss() - before;
    // Buffering the upload would grow the peak by at least its size; streaming keeps it to buffers.
    console.log(`60 MB upload: peak RSS grew by ${(grown / 1024 / 1024).toFixed(1)} MB`);
    assert.ok(grown < limit / 4, `peak RSS grew by ${(grown / 1024 / 1024).toFixed(1)} MB for a 60 MB upload`);
  } finally {
    await big.kill('SIGTERM');
  }
});

test.run();
