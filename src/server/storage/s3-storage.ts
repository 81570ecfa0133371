import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { assertKey, assertPrefix, contentTypeOf, type Storage, type StorageConfig } from './storage';

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/** How long /readyz waits for the bucket before calling it unreachable. */
const CHECK_TIMEOUT_MS = 3000;

/** Uploads in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2 …): STORAGE_URL=s3://bucket[/prefix]. */
export function createS3Storage(config: S3Config): Storage {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle,
    ...(config.credentials ? { credentials: config.credentials } : {}),
    // Checksums only where S3 requires them: many S3-compatible stores reject the newer CRC headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5000, requestTimeout: 30_000 },
  });
  const Bucket = config.bucket;
  const keyOf = (key: string) => config.prefix + assertKey(key);

  async function list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: config.prefix + assertPrefix(prefix), ContinuationToken }));
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(config.prefix.length));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys.sort();
  }

  async function remove(keys: readonly string[]) {
    // DeleteObjects takes at most 1,000 keys; a missing key counts as deleted.
    for (let start = 0; start < keys.length; start += 1000) {
      const chunk = keys.slice(start, start + 1000);
      if (chunk.length === 1) {
        // One key: the plain DELETE (no Content-MD5 needed, and every S3-compatible store has it).
        await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(chunk[0]) }));
        continue;
      }
      const out = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: chunk.map((k) => ({ Key: keyOf(k) })), Quiet: true } }));
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`storage: could not delete ${failed.length} objects (${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''})`);
    }
  }

  return {
    description: `s3://${Bucket}/${config.prefix}${config.endpoint ? ` at ${config.endpoint}` : ` in ${config.region}`}`,
    async put(key, body, contentType) {
      const data = typeof body === 'string' ? Buffer.from(body) : body;
      await client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: data, ContentLength: data.length, ContentType: contentType ?? contentTypeOf(key) }));
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: Number(out.ContentLength ?? 0), etag: out.ETag ?? '""', body: out.Body as Readable };
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async head(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: Number(out.ContentLength ?? 0), etag: out.ETag ?? '""' };
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    async read(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        return Buffer.from((await out.Body?.transformToByteArray()) ?? []);
      } catch (err) {
        if (notFound(err)) return null;
        throw err;
      }
    },
    delete: remove,
    list,
    async deletePrefix(prefix) {
      const keys = await list(prefix);
      await remove(keys);
      return keys.length;
    },
    async check() {
      await client.send(new HeadBucketCommand({ Bucket }), { abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    },
    close() {
      client.destroy();
    },
  };
}
