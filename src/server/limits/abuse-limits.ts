import type SQLite from 'better-sqlite3';
import { type RateLimiterAbstract, RateLimiterSQLite } from 'rate-limiter-flexible';
import { ABUSE_LIMITS, type AbuseLimitName } from '../../shared/constants';
import type { LimiterStore } from '../accounts/login-limiter';
import { RuleError } from '../rule-error';

/** The translated text of each limit's 429 ({{minutes}} / {{seconds}} until the next try). */
const MESSAGE_KEYS: Record<AbuseLimitName, string> = {
  signup_ip: 'limits.signup_ip',
  mail_address: 'limits.mail_address',
  mail_ip: 'limits.mail_ip',
  report_day: 'limits.report_day',
  message_minute: 'limits.message_minute',
  upload_hour: 'limits.upload_hour',
  lander_view_ip: 'limits.lander_view_ip',
};

/** Too many requests: a 429 whose answer carries Retry-After. */
export class RateLimitError extends RuleError {
  constructor(key: string, readonly retryAfterS: number, code = 'rate_limited') {
    super(code, key, 429, { minutes: Math.max(1, Math.ceil(retryAfterS / 60)), seconds: retryAfterS });
  }
}

/** Retry-After in whole seconds (at least 1) from a limiter's milliseconds. */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export interface AbuseLimits {
  /** Counts one request under `key` (a member id, an address, an IP); throws RateLimitError past the limit. A null key (no IP known) is not counted. */
  consume(name: AbuseLimitName, key: string | null): Promise<void>;
  /**
   * The same count as `consume`, synchronous, for a caller that already holds a transaction open on
   * `sqlite` (so the count commits, or rolls back, with the caller's writes: no commit of its own).
   * Only where the limit's counts live in that connection's `rate_limits` table (SQLite without Redis);
   * otherwise undefined, and `consume` it is. The function answers false past the limit.
   */
  inTransaction?(name: AbuseLimitName, sqlite: SQLite.Database): ((key: string) => boolean) | undefined;
}

/** No option that `sqliteConsumer` does not replay: in-memory blocks, block-on-consumed, even spreading, an insurance limiter. */
function plain(limiter: RateLimiterAbstract): boolean {
  const l = limiter as unknown as Record<string, unknown>;
  return !l.execEvenly && !l.inMemoryBlockOnConsumed && !l.blockOnConsumed && !l.insuranceLimiter;
}

/**
 * rate-limiter-flexible's `RateLimiterSQLite.consume(key)` (1 point) as one synchronous step inside the
 * caller's open transaction: the library's own upsert on its own table and key (`keyPrefix:key`), so a
 * count made here and one made by the library are the same count. Within the window (`expire` ahead)
 * the points go up, else a new window starts with 1 point; past `points`, the request that crosses the
 * limit starts the block (the row is replaced: its points, `expire` = now + the block), as the
 * library's `_afterConsume` / `_block` do. Answers whether the request is within the limit.
 * tests/api/limits.test.ts runs it and the library side by side and compares every row and answer.
 */
function sqliteConsumer(limiter: RateLimiterAbstract, sqlite: SQLite.Database): (key: string) => boolean {
  const table = (limiter as unknown as { tableName: string }).tableName;
  const upsert = sqlite.prepare<[string, number, number | null, number, number], { points: number; expire: number | null }>(
    `INSERT INTO ${table} (key, points, expire)
         VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET
           points = CASE WHEN expire IS NULL OR expire > ? THEN points + excluded.points ELSE excluded.points END,
           expire = CASE WHEN expire IS NULL OR expire > ? THEN expire ELSE excluded.expire END
         RETURNING points, expire`,
  );
  const block = sqlite.prepare<[string, number, number | null]>(`INSERT OR REPLACE INTO ${table} (key, points, expire) VALUES (?, ?, ?)`);
  const { points, msDuration, msBlockDuration } = limiter;
  return (key) => {
    if (!sqlite.inTransaction) throw new Error('inTransaction: no transaction open');
    const rlKey = limiter.getKey(key);
    const now = Date.now();
    const consumed = (upsert.get(rlKey, 1, msDuration > 0 ? now + msDuration : null, now, now) as { points: number }).points;
    if (consumed <= points) return true;
    // Only the request that crosses the limit blocks (RateLimiterStoreAbstract._crossedBlockThreshold, 1 point).
    if (msBlockDuration > 0 && consumed <= points + 1) block.run(rlKey, consumed, Date.now() + msBlockDuration);
    return false;
  };
}

/** The abuse limits (signups, mails, reports, messages, uploads) on the shared limiter store. */
export async function createAbuseLimits(store: LimiterStore, factor = 1): Promise<AbuseLimits> {
  const limiters = new Map<AbuseLimitName, RateLimiterAbstract>();
  for (const [name, limit] of Object.entries(ABUSE_LIMITS) as [AbuseLimitName, (typeof ABUSE_LIMITS)[AbuseLimitName]][]) {
    limiters.set(name, await store.create({ keyPrefix: `abuse_${name}`, points: Math.max(1, Math.round(limit.points * factor)), duration: limit.seconds }));
  }
  const consumers = new Map<AbuseLimitName, (key: string) => boolean>();
  return {
    inTransaction(name, sqlite) {
      // The library's SQLite store on this very connection, with nothing of its own in memory.
      const limiter = limiters.get(name) as RateLimiterAbstract;
      if (!store.sqlite || store.sqlite !== sqlite || !(limiter instanceof RateLimiterSQLite) || !plain(limiter)) return undefined;
      let consumer = consumers.get(name);
      if (!consumer) {
        consumer = sqliteConsumer(limiter, sqlite);
        consumers.set(name, consumer);
      }
      return consumer;
    },
    async consume(name, key) {
      if (key === null) return;
      try {
        await (limiters.get(name) as RateLimiterAbstract).consume(key);
      } catch (rejected) {
        // The store failing is an error; a refusal is a RateLimiterRes.
        if (rejected instanceof Error) throw rejected;
        throw new RateLimitError(MESSAGE_KEYS[name], retryAfterSeconds((rejected as { msBeforeNext: number }).msBeforeNext));
      }
    },
  };
}
