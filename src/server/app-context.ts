import pino, { type Logger } from 'pino';
import { createLimiterStore, createLoginLimits, type LimiterStore, type LoginLimits } from './accounts/login-limiter';
import type { Config } from './config';
import { type AbuseLimits, createAbuseLimits } from './limits/abuse-limits';
import { type Db, openDatabase } from './db/database';
import { migrateToLatest } from './db/migrate';
import { createMailer, type Mailer } from './mail/mailer';
import { createEventBus, type EventBus } from './events/bus';
import { SessionCache } from './accounts/session-cache';
import { createPushService, type PushService } from './push/push.service';
import { Presence } from './notifications/presence';
import { SiteRegistry, loadSites } from './sites/site-registry';
import { createPaymentsRuntime, type PaymentsRuntime } from './payments/payments.runtime';
import { createImageScorer, type ImageScorer } from './safety/images';
import { createStorage, type Storage } from './storage';

import { type Clock, systemClock } from './util/clock';

export { type Clock, systemClock };

/** Dependencies of every service, created once per process. */
export interface AppContext {
  config: Config;
  sites: SiteRegistry;
  db: Db;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  limits: LoginLimits;
  /** Signups, mails, reports, messages and uploads per IP, address or member (429 past them). */
  abuse: AbuseLimits;
  /** Realtime fan-out to SSE connections (in-process, or Redis with REDIS_URL). */
  bus: EventBus;
  /** Session lookups reused for a moment, dropped on every change of the member (see session-cache.ts). */
  sessions: SessionCache;
  /** Web push to members' browsers (VAPID keys kept in the database). */
  push: PushService;
  /** Payment provider (Mollie or the local one) and the SMS sender for direct debit. */
  payments: PaymentsRuntime;
  /** Which members have an open tab (SSE stream) in any process: notification mails wait for them. */
  presence: Presence;
  /** Explicit-image scores (nsfwjs in a worker thread, started at the first image; src/server/safety/images.ts). */
  images: ImageScorer;
  /** Uploads (photos, avatars, chat images): the local folder or an S3-compatible bucket (src/server/storage). */
  storage: Storage;
  close(): Promise<void>;
}

/** Opens the database, migrates it and wires the services. */
export async function createAppContext(config: Config, overrides: Partial<AppContext> = {}): Promise<AppContext> {
  const db = overrides.db ?? openDatabase(config.databaseUrl);
  await migrateToLatest(db);
  const clock = overrides.clock ?? systemClock;
  const store: LimiterStore = createLimiterStore(db, config.redisUrl);
  const logger = overrides.logger ?? pino({ level: config.logLevel });
  const bus = overrides.bus ?? createEventBus(config.redisUrl, logger);
  const sites = overrides.sites ?? new SiteRegistry(loadSites(), config);
  const push = overrides.push ?? (await createPushService(db, sites, logger));
  const payments = overrides.payments ?? createPaymentsRuntime({ config, db, clock, logger });
  const sessions = overrides.sessions ?? new SessionCache(db.writes, bus, config.sessionCacheMs);
  const presence = overrides.presence ?? new Presence(db.db, clock);
  const images = overrides.images ?? createImageScorer(config.imageScorer);
  const storage = overrides.storage ?? createStorage(config.storage);
  return {
    images,
    storage,
    presence,
    payments,
    sessions,
    config,
    sites,
    push,
    db,
    clock,
    logger,
    bus,
    mailer: overrides.mailer ?? createMailer(config.smtpUrl, db, clock),
    limits: overrides.limits ?? (await createLoginLimits(store)),
    abuse: overrides.abuse ?? (await createAbuseLimits(store, config.rateLimitFactor)),
    async close() {
      await payments.close();
      await store.close();
      await bus.close();
      await push.idle();
      await presence.stop();
      await images.close();
      storage.close();
      // What the CLIs and a stopping server wrote is on disk before the handle goes.
      await db.durable().catch(() => undefined);
      await db.db.destroy();
    },
  };
}
