// The measured side of storage-s3.bench.ts: a process that streams one put of BENCH_BYTES to the
// S3 server at S3_ENDPOINT_URL through storage-s3 and prints its peak RSS before and after.
import { Readable } from 'node:stream';
import { startPlugin } from 'switchboard/sdk/testing';
import storageS3 from '../plugins/storage-s3/index.js';

const bytes = Number(process.env.BENCH_BYTES);
const chunk = Buffer.alloc(64 * 1024, 's');
let sent = 0;
const source = new Readable({
  read() {
    if (sent >= bytes) return this.push(null);
    const n = Math.min(chunk.length, bytes - sent);
    sent += n;
    this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
  },
});

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('S3_'))) as Record<string, string>;
const started = await startPlugin(storageS3, { env });
const storage = started.instance.providers.storage!;
// Warm up: the SDK loaded and one small multipart upload done, so first-use allocations are not counted.
await storage.put('bench/warm.bin', Readable.from([Buffer.alloc(1024)]));
globalThis.gc?.();
const before = process.resourceUsage().maxRSS * 1024;
const entry = await storage.put('bench/big.bin', source);
const after = process.resourceUsage().maxRSS * 1024;
await started.stop();
console.log(JSON.stringify({ size: entry.size, before, after }));
