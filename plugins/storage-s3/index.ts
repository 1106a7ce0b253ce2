import { Transform, type Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  assertStorageKey,
  definePlugin,
  requireSettings,
  secret,
  StorageNotFoundError,
  z,
  type EgressHttpClient,
  type StorageEntry,
  type StorageProvider,
} from 'switchboard/sdk';
import { egressRequestHandler } from './fetch-handler.js';

const settings = z.object({
  /** Bucket of the artifacts. */
  bucket: z.string().min(1).optional(),
  /** Prepended to every key (`switchboard` or `switchboard/`: a `/` is added), so one bucket can serve several deployments. */
  prefix: z.string().regex(/^([A-Za-z0-9._-]+\/)*([A-Za-z0-9._-]+)?$/, 'segments of [A-Za-z0-9._-] separated by "/"').default(''),
  region: z.string().min(1).default('us-east-1'),
  /** An S3-compatible server (MinIO, Ceph, ...) instead of AWS; path-style addressing then. */
  endpointUrl: z.url().optional(),
  /** Server-side encryption with this KMS key (aws:kms) on every put. */
  kmsKeyId: z.string().min(1).optional(),
  /** Static credentials; both unset: the AWS SDK's default chain (environment, profile, instance role). */
  accessKeyId: secret(z.string().min(1)).optional(),
  secretAccessKey: secret(z.string().min(1)).optional(),
});

type S3Settings = z.infer<typeof settings>;

const env = {
  bucket: 'S3_BUCKET',
  prefix: 'S3_PREFIX',
  region: 'S3_REGION',
  endpointUrl: 'S3_ENDPOINT_URL',
  kmsKeyId: 'S3_KMS_KEY_ID',
  accessKeyId: 'S3_ACCESS_KEY_ID',
  secretAccessKey: 'S3_SECRET_ACCESS_KEY',
} as const;

/** Multipart part size (S3's minimum): a streamed put holds at most PART_QUEUE parts of this in memory, plus copies (see docs/benchmarks.md). */
const PART_SIZE = 5 * 1024 * 1024;
const PART_QUEUE = 2;

// The AWS SDK is a few hundred modules: loaded with the first S3 request, not at gateway start.
let sdk: Promise<[typeof import('@aws-sdk/client-s3'), typeof import('@aws-sdk/lib-storage')]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]));

/** S3 answers a missing object 404 (NoSuchKey on GET, NotFound on HEAD). */
function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Counts the bytes of a streamed put on their way to the multipart upload. */
function byteCounter(): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.bytes += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}

export type S3StorageConfig = S3Settings & { bucket: string };

export function createS3Storage(config: S3StorageConfig, http: EgressHttpClient): StorageProvider & { probe(): Promise<void>; close(): void } {
  let client: Promise<S3Client> | undefined;
  const s3 = () =>
    (client ??= loadSdk().then(
      ([{ S3Client }]) =>
        new S3Client({
          region: config.region,
          ...(config.endpointUrl ? { endpoint: config.endpointUrl, forcePathStyle: true } : {}),
          ...(config.accessKeyId && config.secretAccessKey ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } } : {}),
          requestHandler: egressRequestHandler(http),
          // S3-compatible servers do not all know the flexible checksums: send and check them only where S3 requires.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }),
    ));
  const prefix = config.prefix && !config.prefix.endsWith('/') ? `${config.prefix}/` : config.prefix;
  const objectKey = (key: string) => {
    assertStorageKey(key);
    return `${prefix}${key}`;
  };
  const encryption = config.kmsKeyId ? { ServerSideEncryption: 'aws:kms' as const, SSEKMSKeyId: config.kmsKeyId } : {};
  const Bucket = config.bucket;

  const getObject = async (key: string) => {
    const [{ GetObjectCommand }] = await loadSdk();
    try {
      const res = await (await s3()).send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
      return res.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new StorageNotFoundError(key);
      throw err;
    }
  };
  const exists = async (key: string) => {
    const [{ HeadObjectCommand }] = await loadSdk();
    try {
      await (await s3()).send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  };

  return {
    async put(key, data) {
      const Key = objectKey(key);
      const [{ PutObjectCommand }, { Upload }] = await loadSdk();
      if (Buffer.isBuffer(data)) {
        // One PUT: S3 shows the object only once all of it arrived.
        await (await s3()).send(new PutObjectCommand({ Bucket, Key, Body: data, ContentLength: data.length, ...encryption }));
        return { key, size: data.length, modifiedAt: new Date() };
      }
      // Multipart: the object appears at CompleteMultipartUpload; on any failure Upload aborts
      // the upload (leavePartsOnError false), so no object and no stray parts remain.
      const counter = byteCounter();
      data.on('error', (err) => counter.destroy(err));
      const upload = new Upload({
        client: await s3(),
        params: { Bucket, Key, Body: data.pipe(counter), ...encryption },
        partSize: PART_SIZE,
        queueSize: PART_QUEUE,
        leavePartsOnError: false,
      });
      await upload.done();
      return { key, size: counter.bytes, modifiedAt: new Date() };
    },
    async get(key) {
      const body = await getObject(key);
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    },
    stream: getObject,
    async delete(key) {
      // S3 answers a DELETE 204 whether or not the key existed: HEAD first tells which.
      if (!(await exists(key))) return false;
      const [{ DeleteObjectCommand }] = await loadSdk();
      await (await s3()).send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
      return true;
    },
    exists,
    async list(listPrefix = '') {
      if (listPrefix) assertStorageKey(listPrefix.replace(/\/$/, ''));
      const [{ ListObjectsV2Command }] = await loadSdk();
      const out: StorageEntry[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await (await s3()).send(new ListObjectsV2Command({ Bucket, Prefix: `${prefix}${listPrefix}`, ContinuationToken }));
        for (const o of page.Contents ?? []) {
          if (!o.Key) continue;
          out.push({ key: o.Key.slice(prefix.length), size: o.Size ?? 0, modifiedAt: o.LastModified ?? new Date(0) });
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return out.sort((a, b) => a.key.localeCompare(b.key));
    },
    async probe() {
      const [{ HeadBucketCommand }] = await loadSdk();
      await (await s3()).send(new HeadBucketCommand({ Bucket }));
    },
    close() {
      void client?.then((c) => c.destroy());
    },
  };
}

export default definePlugin({
  settings,
  env,
  start(ctx) {
    const config = requireSettings('storage-s3', ctx.settings, ['bucket'], env);
    const storage = createS3Storage(config, ctx.http);
    return {
      providers: { storage },
      async health() {
        try {
          await storage.probe();
          return { ok: true, info: { bucket: config.bucket, prefix: config.prefix, endpoint: config.endpointUrl ?? `s3.${config.region}.amazonaws.com` } };
        } catch (err) {
          return { ok: false, detail: `bucket ${config.bucket} not reachable: ${(err as Error).name}: ${(err as Error).message}` };
        }
      },
      stop() {
        storage.close();
      },
    };
  },
});
