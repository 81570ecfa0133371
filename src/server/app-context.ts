import pino, { type Logger } from 'pino';
import type { Config } from './config';
import { type Db, openDatabase } from './db/database';
import { SiteRegistry, loadSites } from './sites/site-registry';

/** The clock every rule reads time from, so tests can move it. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/** Dependencies of every service, created once per process. */
export interface AppContext {
  config: Config;
  sites: SiteRegistry;
  db: Db;
  clock: Clock;
  logger: Logger;
}

export function createAppContext(config: Config, overrides: Partial<AppContext> = {}): AppContext {
  return {
    config,
    sites: overrides.sites ?? new SiteRegistry(loadSites()),
    db: overrides.db ?? openDatabase(config.databaseUrl),
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? pino({ level: config.logLevel }),
  };
}
