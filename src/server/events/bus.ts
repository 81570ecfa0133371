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
  /**
   * Delivers the events and tells every process that the members they reach changed (cached
   * sessions are dropped).
   */
  publish(events: BusEvent[]): Promise<void>;
  /**
   * Calls `listener` for the member's events until `close`; `ready` settles once events published
   * from now on are sure to arrive (the Redis subscription is confirmed).
   */
  subscribe(userId: number, listener: (event: BusEvent) => void): Subscription;
  /**
   * Tells every process (this one included) that these members or session tokens changed, so
   * cached sessions of them are dropped. Every `publish` does this for the members it reaches.
   */
  invalidate(message: Invalidation): Promise<void>;
  /** Calls `listener` for every invalidation from any process. */
  onInvalidate(listener: (message: Invalidation) => void): void;
  close(): Promise<void>;
}

/** Members (user ids) and single sessions (token hashes) whose cached session is stale. */
export interface Invalidation {
  users?: number[];
  tokens?: string[];
}

const INVALIDATE_CHANNEL = 'kd:invalidate';
const usersOf = (events: BusEvent[]) => [...new Set(events.map((e) => e.userId))];

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
  const invalidations = new EventEmitter();
  invalidations.setMaxListeners(0);
  return {
    async publish(events) {
      if (events.length) invalidations.emit('message', { users: usersOf(events) } satisfies Invalidation);
      for (const event of events) local.deliver(event);
    },
    async invalidate(message) {
      invalidations.emit('message', message);
    },
    onInvalidate(listener) {
      invalidations.on('message', listener);
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
  const invalidations = new EventEmitter();
  invalidations.setMaxListeners(0);
  for (const client of [pub, sub]) client.on('error', (err) => logger?.warn({ err }, 'redis bus error'));
  sub.subscribe(INVALIDATE_CHANNEL).catch((err) => logger?.warn({ err }, 'redis subscribe failed'));
  sub.on('message', (channel: string, payload: string) => {
    try {
      if (channel === INVALIDATE_CHANNEL) invalidations.emit('message', JSON.parse(payload) as Invalidation);
      else local.deliver(JSON.parse(payload) as BusEvent);
    } catch (err) {
      logger?.warn({ err }, 'bad bus payload');
    }
  });
  return {
    async publish(events) {
      if (events.length === 0) return;
      const pipeline = pub.pipeline();
      pipeline.publish(INVALIDATE_CHANNEL, JSON.stringify({ users: usersOf(events) } satisfies Invalidation));
      for (const event of events) pipeline.publish(channelOf(event.userId), JSON.stringify(event));
      await pipeline.exec();
    },
    async invalidate(message) {
      await pub.publish(INVALIDATE_CHANNEL, JSON.stringify(message));
    },
    onInvalidate(listener) {
      invalidations.on('message', listener);
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
