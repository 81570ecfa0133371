import type SQLite from 'better-sqlite3';
import Redis from 'ioredis';
import {
  type IRateLimiterStoreOptions, RateLimiterPostgres, RateLimiterRedis, type RateLimiterAbstract, RateLimiterSQLite,
} from 'rate-limiter-flexible';
import type { Checkpointer } from '../db/checkpointer';
import { type Db, directSqliteOf } from '../db/database';

/** Failed logins allowed per account before it is blocked, and for how long. */
export const ACCOUNT_FAILURES = Number(process.env.LOGIN_ACCOUNT_FAILURES ?? 5);
export const ACCOUNT_BLOCK_S = Number(process.env.LOGIN_ACCOUNT_BLOCK_S ?? 15 * 60);
/** Failed logins allowed per IP address per hour. */
export const IP_FAILURES = Number(process.env.LOGIN_IP_FAILURES ?? 50);
export const IP_BLOCK_S = 60 * 60;

export interface LimiterStore {
  create(options: { keyPrefix: string; points: number; duration: number }): Promise<RateLimiterAbstract>;
  close(): Promise<void>;
  /** On SQLite: the connection whose `rate_limits` table holds every count (none with Redis or PostgreSQL). */
  sqlite?: SQLite.Database;
}

/**
 * The SQLite limiter, whose counts (a write and a commit each) wait while a checkpoint meant to restart
 * the WAL runs, as every write through Kysely does (`waitingForCheckpoints` in src/server/db/database.ts):
 * one write in between and the WAL keeps growing. `_getConnection` is the library's step before each
 * statement (it hands out a pooled connection for knex).
 */
class CheckpointWaitingLimiter extends RateLimiterSQLite {
  constructor(private readonly checkpoints: Checkpointer | undefined, ...args: ConstructorParameters<typeof RateLimiterSQLite>) {
    super(...args);
  }
  async _getConnection(): Promise<unknown> {
    const running = this.checkpoints?.running();
    if (running) await running;
    return (RateLimiterSQLite.prototype as unknown as { _getConnection(): Promise<unknown> })._getConnection.call(this);
  }
}

/** Limiter storage shared by every process: Redis when configured, else the database itself. */
export function createLimiterStore(db: Db, redisUrl: string | null): LimiterStore {
  if (redisUrl) {
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, lazyConnect: false, maxRetriesPerRequest: 1 });
    return {
      async create(o) {
        return new RateLimiterRedis({ storeClient: redis, ...o, blockDuration: o.duration });
      },
      async close() {
        redis.disconnect();
      },
    };
  }
  return {
    sqlite: db.dialect === 'sqlite' ? db.raw.sqlite : undefined,
    create(o) {
      const options: IRateLimiterStoreOptions = { ...o, blockDuration: o.duration, tableName: 'rate_limits', storeClient: null };
      return new Promise((resolve, reject) => {
        let limiter: RateLimiterAbstract;
        const ready = (err?: Error) => (err ? reject(err) : resolve(limiter));
        if (db.dialect === 'postgres') {
          limiter = new RateLimiterPostgres({ ...options, storeClient: db.raw.pool, storeType: 'pool', clearExpiredByTimeout: false }, ready);
        } else {
          // The statement-caching handle: the library prepares its upsert on every call (4 % of a chat send).
          const storeClient = directSqliteOf(db.db) ?? db.raw.sqlite;
          limiter = new CheckpointWaitingLimiter(db.raw.checkpoints, { ...options, storeClient, storeType: 'better-sqlite3', clearExpiredByTimeout: false } as never, ready);
        }
      });
    },
    async close() {},
  };
}

/** A login block: how long, and whether the account or the client's address is blocked. */
export interface LoginBlock {
  ms: number;
  by: 'account' | 'ip';
}

export interface LoginLimits {
  /** The block in force for this account or IP, or null. */
  blockedFor(accountKey: string, ip: string | null): Promise<LoginBlock | null>;
  /** Records a failure; returns the block that starts now, or null. */
  recordFailure(accountKey: string, ip: string | null): Promise<LoginBlock | null>;
  reset(accountKey: string): Promise<void>;
}

/** The longer of two blocks (the account's wins a tie: that is what the member can act on). */
function longer(account: number, ip: number): LoginBlock | null {
  if (account <= 0 && ip <= 0) return null;
  return account >= ip ? { ms: account, by: 'account' } : { ms: ip, by: 'ip' };
}

export async function createLoginLimits(store: LimiterStore): Promise<LoginLimits> {
  const account = await store.create({ keyPrefix: 'login_account', points: ACCOUNT_FAILURES, duration: ACCOUNT_BLOCK_S });
  const ip = await store.create({ keyPrefix: 'login_ip', points: IP_FAILURES, duration: IP_BLOCK_S });
  const remaining = async (limiter: RateLimiterAbstract, key: string, points: number) => {
    const res = await limiter.get(key);
    return res && res.consumedPoints >= points ? res.msBeforeNext : 0;
  };
  const consume = async (limiter: RateLimiterAbstract, key: string) => {
    try {
      const res = await limiter.consume(key);
      return res.remainingPoints === 0 ? res.msBeforeNext : 0;
    } catch (rejected) {
      if (rejected instanceof Error) throw rejected;
      return (rejected as { msBeforeNext?: number }).msBeforeNext ?? 0;
    }
  };
  return {
    async blockedFor(accountKey, address) {
      const byAccount = await remaining(account, accountKey, ACCOUNT_FAILURES);
      const byIp = address ? await remaining(ip, address, IP_FAILURES) : 0;
      return longer(byAccount, byIp);
    },
    async recordFailure(accountKey, address) {
      const byAccount = await consume(account, accountKey);
      const byIp = address ? await consume(ip, address) : 0;
      return longer(byAccount, byIp);
    },
    async reset(accountKey) {
      await account.delete(accountKey);
    },
  };
}
