// Peak resident memory of a gateway process while it refuses an upload one byte over its limit
// (10 MB and 60 MB limits), against the size of the upload. Streaming keeps the growth to a few
// buffers whatever the size; buffering would grow it by the upload's size. Moved here from the
// test suite: figures are measured, not asserted (the suite checks the streaming behaviour).
import { request } from 'node:http';
import path from 'node:path';
import { ROOT, postFax, removeDir, tempDir } from '../test/support/gateway.js';
import { startChildGateway } from '../test/support/child-gateway.js';

// Frequent collection makes peak RSS show what the gateway holds, not garbage not yet collected.
const MEASURED = `--expose-gc --require ${path.join(ROOT, 'bench/frequent-gc.cjs')}`;
const MB = 1024 * 1024;

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

for (const limitMb of [10, 60]) {
  const dataDir = tempDir();
  const gateway = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: `${dataDir}/none.env`, FAX_DISABLED: 'true', MAX_FILE_SIZE_MB: String(limitMb), NODE_OPTIONS: MEASURED });
  try {
    // Warm up the upload path so first-use allocations are not counted.
    await postFax(gateway.url, '+15550103333', 'warm up');
    const before = gateway.peakRss();
    const status = await streamUpload(gateway.url, limitMb * MB + 1);
    const grown = gateway.peakRss() - before;
    console.log(
      `${limitMb} MB + 1 byte upload (answered ${status}): peak RSS grew by ${(grown / MB).toFixed(1)} MB, ${((grown / (limitMb * MB)) * 100).toFixed(1)}% of the upload (peak ${(before / MB).toFixed(1)} MB before, ${((before + grown) / MB).toFixed(1)} MB after)`,
    );
  } finally {
    await gateway.kill('SIGTERM');
    removeDir(dataDir);
  }
}
