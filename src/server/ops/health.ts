import { access, constants, mkdir } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { sql } from 'kysely';
import type { AppContext } from '../app-context';

/** A check slower than this counts as failed: a balancer must not hang on a stuck dependency. */
export const CHECK_TIMEOUT_MS = 2000;

/** What `/readyz` looked at: `ok`, or why not. */
export type CheckResult = 'ok' | string;

/** The part of the storage layer readiness asks (object storage when configured, issue 29 part 1). */
interface StorageCheck {
  check(): Promise<unknown>;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const outcome = (work: Promise<unknown>): Promise<CheckResult> =>
  withTimeout(work, CHECK_TIMEOUT_MS).then(() => 'ok', (err: unknown) => String((err as Error)?.message ?? err).slice(0, 200));

/**
 * Readiness of one process: the database answers, Redis answers (when configured), storage can be
 * written (the bucket's check, or the uploads folder). Its own Redis connection, so a broken bus or
 * limiter connection shows too (they share the server).
 */
export function createReadiness(app: AppContext) {
  let redis: Redis | null = null;
  const redisClient = () => {
    if (!app.config.redisUrl) return null;
    redis ??= new Redis(app.config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, connectTimeout: CHECK_TIMEOUT_MS });
    redis.on('error', () => undefined);
    return redis;
  };
  return {
    async check(): Promise<{ ok: boolean; checks: Record<string, CheckResult> }> {
      const client = redisClient();
      const storage = (app as AppContext & { storage?: StorageCheck }).storage;
      const [database, redisResult, storageResult] = await Promise.all([
        outcome(sql`select 1`.execute(app.db.db)),
        client
          ? outcome((async () => {
            if (client.status === 'wait' || client.status === 'end') await client.connect();
            await client.ping();
          })())
          : Promise.resolve<CheckResult>('ok'),
        outcome(storage?.check ? storage.check() : mkdir(app.config.uploadDir, { recursive: true }).then(() => access(app.config.uploadDir, constants.W_OK))),
      ]);
      const checks: Record<string, CheckResult> = { database, storage: storageResult };
      if (client) checks.redis = redisResult;
      return { ok: Object.values(checks).every((c) => c === 'ok'), checks };
    },
    close() {
      redis?.disconnect();
      redis = null;
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
