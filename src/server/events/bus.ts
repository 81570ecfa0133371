import { EventEmitter } from 'node:events';
import Redis from 'ioredis';
import type { Logger } from 'pino';

/** One delivered event: the member it is for, its log id (the SSE id), type and JSON data. */
export interface BusEvent {
  userId: number;
  id: number;
  type: string;
  data: string;
}

/**
 * Fans events out to the SSE connections of every app process. In-process by default; with
 * REDIS_URL, Redis pub/sub on one channel per member, subscribed while that member has a tab open here.
 */
export interface EventBus {
  publish(events: BusEvent[]): Promise<void>;
  /**
   * Calls `listener` for the member's events until `close`; `ready` settles once events published
   * from now on are sure to arrive (the Redis subscription is confirmed).
   */
  subscribe(userId: number, listener: (event: BusEvent) => void): Subscription;
  close(): Promise<void>;
}

export interface Subscription {
  ready: Promise<void>;
  close(): void;
}

const channelOf = (userId: number) => `kd:events:${userId}`;

/** Local fan-out keyed by member; subscribers are counted so the Redis side knows when to (un)subscribe. */
class LocalFanout {
  private readonly emitter = new EventEmitter();
  private readonly counts = new Map<number, number>();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  add(userId: number, listener: (event: BusEvent) => void): { first: boolean; remove: () => boolean } {
    const key = String(userId);
    this.emitter.on(key, listener);
    const count = (this.counts.get(userId) ?? 0) + 1;
    this.counts.set(userId, count);
    let removed = false;
    return {
      first: count === 1,
      remove: () => {
        if (removed) return false;
        removed = true;
        this.emitter.off(key, listener);
        const left = (this.counts.get(userId) ?? 1) - 1;
        if (left <= 0) this.counts.delete(userId);
        else this.counts.set(userId, left);
        return left <= 0;
      },
    };
  }
  deliver(event: BusEvent) {
    this.emitter.emit(String(event.userId), event);
  }
}

export function createMemoryBus(): EventBus {
  const local = new LocalFanout();
  return {
    async publish(events) {
      for (const event of events) local.deliver(event);
    },
    subscribe(userId, listener) {
      const { remove } = local.add(userId, listener);
      return { ready: Promise.resolve(), close: () => void remove() };
    },
    async close() {},
  };
}

export function createRedisBus(url: string, logger?: Logger): EventBus {
  const pub = new Redis(url, { maxRetriesPerRequest: 2 });
  const sub = new Redis(url, { maxRetriesPerRequest: null });
  const local = new LocalFanout();
  const pending = new Map<number, Promise<void>>();
  for (const client of [pub, sub]) client.on('error', (err) => logger?.warn({ err }, 'redis bus error'));
  sub.on('message', (_channel: string, payload: string) => {
    try {
      local.deliver(JSON.parse(payload) as BusEvent);
    } catch (err) {
      logger?.warn({ err }, 'bad bus payload');
    }
  });
  return {
    async publish(events) {
      if (events.length === 0) return;
      const pipeline = pub.pipeline();
      for (const event of events) pipeline.publish(channelOf(event.userId), JSON.stringify(event));
      await pipeline.exec();
    },
    subscribe(userId, listener) {
      const { first, remove } = local.add(userId, listener);
      if (first) {
        pending.set(userId, sub.subscribe(channelOf(userId)).then(() => undefined, (err) => logger?.warn({ err }, 'redis subscribe failed')));
      }
      return {
        ready: pending.get(userId) ?? Promise.resolve(),
        close: () => {
          if (!remove()) return;
          pending.delete(userId);
          sub.unsubscribe(channelOf(userId)).catch(() => undefined);
        },
      };
    },
    async close() {
      sub.disconnect();
      pub.disconnect();
    },
  };
}

/** Redis when REDIS_URL is set, otherwise in-process. */
export function createEventBus(redisUrl: string | null, logger?: Logger): EventBus {
  return redisUrl ? createRedisBus(redisUrl, logger) : createMemoryBus();
}
