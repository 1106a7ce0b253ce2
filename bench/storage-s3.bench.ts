// Peak resident memory of a process streaming a 64 MB and a 256 MB put through storage-s3 to
// s3rver on loopback, against the size of the put. Multipart upload holds at most two 8 MiB parts
// (and the SDK's copies of them): the growth stays near that whatever the size.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../test/support/gateway.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server } from '../test/support/s3-server.js';

const MB = 1024 * 1024;
const s3 = await startS3Server(['bench']);
try {
  for (const sizeMb of [64, 256]) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--require', path.join(ROOT, 'bench/frequent-gc.cjs'), '--no-warnings', path.join(ROOT, 'dist/bench/storage-s3-put-process.js')], {
      cwd: ROOT,
      env: { BENCH_BYTES: String(sizeMb * MB), S3_BUCKET: 'bench', S3_ENDPOINT_URL: s3.url, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY },
    });
    const { size, before, after } = JSON.parse(stdout.trim().split('\n').pop()!) as { size: number; before: number; after: number };
    const grown = after - before;
    console.log(
      `${sizeMb} MB streamed put (${size} bytes stored): peak RSS grew by ${(grown / MB).toFixed(1)} MB, ${((grown / size) * 100).toFixed(1)}% of the put (peak ${(before / MB).toFixed(1)} MB before, ${(after / MB).toFixed(1)} MB after)`,
    );
  }
} finally {
  await s3.close();
}
