import type { Readable } from 'node:stream';

/**
 * Where uploads live (photos, avatars, chat images and their thumbnails): one interface, two
 * backends — a local folder (the default) and any S3-compatible bucket (docs/operations.md, "Storage").
 * Keys are relative paths such as `photos/12/ab…cd.webp`; who may read a key is decided by the app
 * (src/server/static/uploads.ts, the chat image route), never by the store: nothing in it is public.
 */
export interface Storage {
  /** `folder /srv/uploads` or `s3://bucket/prefix at https://…`, for logs. */
  readonly description: string;
  /** Stores (or replaces) an object. */
  put(key: string, body: Buffer | string, contentType?: string): Promise<void>;
  /** The object as a stream with its length and ETag, or null when there is none. */
  get(key: string): Promise<StoredObject | null>;
  /** Length and ETag without the body, or null when there is none. */
  head(key: string): Promise<ObjectInfo | null>;
  /** The whole object in memory, or null when there is none. */
  read(key: string): Promise<Buffer | null>;
  /** Deletes objects; a missing one is fine. */
  delete(keys: readonly string[]): Promise<void>;
  /** Every key that starts with `prefix` (which ends with `/`), sorted. */
  list(prefix: string): Promise<string[]>;
  /** Deletes every object under `prefix` (which ends with `/`); returns how many went. */
  deletePrefix(prefix: string): Promise<number>;
  /** Resolves when the store can be reached (a HEAD on the bucket, or write access to the folder); for /readyz. */
  check(): Promise<void>;
  close(): void;
}

export interface ObjectInfo {
  size: number;
  /** Quoted, as sent in an ETag header. */
  etag: string;
}

export interface StoredObject extends ObjectInfo {
  body: Readable;
}

/** STORAGE_URL and the S3_* settings, parsed (src/server/config.ts). */
export type StorageConfig =
  | { kind: 'local'; dir: string }
  | {
    kind: 's3';
    bucket: string;
    /** Key prefix inside the bucket: '' or ending with '/'. */
    prefix: string;
    endpoint: string | null;
    region: string;
    /** null: the SDK's default chain (AWS_* variables, instance role). */
    credentials: { accessKeyId: string; secretAccessKey: string } | null;
    forcePathStyle: boolean;
  };

/** Content types of the files we store, by extension (a Map: no inherited names such as `constructor`). */
const CONTENT_TYPES = new Map([['webp', 'image/webp'], ['jpg', 'image/jpeg'], ['png', 'image/png'], ['svg', 'image/svg+xml']]);

/** The image type of a key's extension, or null for any other name. */
export function imageTypeOf(key: string): string | null {
  return CONTENT_TYPES.get(key.slice(key.lastIndexOf('.') + 1)) ?? null;
}

export function contentTypeOf(key: string): string {
  return imageTypeOf(key) ?? 'application/octet-stream';
}

// Segments of letters, digits, '_', '-' and '.', never starting with '.': no '..', no hidden files.
const SEGMENT = '[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}';
const KEY = new RegExp(`^(?:${SEGMENT}/){0,7}${SEGMENT}$`);
const PREFIX = new RegExp(`^(?:${SEGMENT}/){1,8}$`);

/** Whether a string is a key this app could have stored (request paths are checked with it before any lookup). */
export function isStorageKey(key: string): boolean {
  return KEY.test(key);
}

export function assertKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`storage: invalid key ${JSON.stringify(key)}`);
  return key;
}

export function assertPrefix(prefix: string): string {
  if (!PREFIX.test(prefix)) throw new Error(`storage: invalid prefix ${JSON.stringify(prefix)}`);
  return prefix;
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
