import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createApi } from '../../src/server/api/app';
import { createApiNodeListener } from '../../src/server/api/node-listener';
import { type AppContext, type Clock, createAppContext } from '../../src/server/app-context';
import { readConfig } from '../../src/server/config';
import { type Db, type Dialect, openDatabase } from '../../src/server/db/database';
import { startS3Server } from './s3-server';

/** Dialects to run database tests against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DIALECTS: Dialect[] = ['sqlite', ...(process.env.TEST_DATABASE_URL ? (['postgres'] as const) : [])];

/** A fresh database: a temp SQLite file, or a new schema in the test PostgreSQL database. */
export async function openTestDatabase(dialect: Dialect): Promise<{ handle: Db; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'kindred-test-'));
    const handle = openDatabase(`sqlite:${path.join(dir, 'test.db')}`);
    return { handle, drop: () => handle.db.destroy() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const base = process.env.TEST_DATABASE_URL as string;
  const admin = openDatabase(base);
  await admin.db.schema.createSchema(schema).execute();
  await admin.db.destroy();
  const handle = { ...openDatabase(schemaUrl(schema)), schema };
  return {
    handle,
    async drop() {
      await handle.db.destroy();
      const cleanup = openDatabase(base);
      await cleanup.db.schema.dropSchema(schema).cascade().execute();
      await cleanup.db.destroy();
    },
  };
}

/** Another handle on the same test database (its own connection, as another process would have). */
export function openSecondHandle(handle: Db): Db {
  if (handle.dialect === 'sqlite') return openDatabase(`sqlite:${handle.raw.sqlite?.name}`);
  return { ...openDatabase(schemaUrl(handle.schema as string)), schema: handle.schema };
}

/** The test PostgreSQL database's URL with its tables looked up in `schema`. */
export function schemaUrl(schema: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export interface TestApp {
  app: AppContext;
  clock: Clock & { set(ms: number): void; advance(ms: number): void };
  request(pathname: string, init?: RequestInit & { host?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** The API on a fresh, migrated database with a movable clock; requests go straight to Hono. */
export async function createTestApp(dialect: Dialect, env: Record<string, string> = {}): Promise<TestApp> {
  const { handle, drop } = await openTestDatabase(dialect);
  let now = Date.parse('2026-11-22T12:00:00Z');
  const clock = { now: () => now, set: (ms: number) => { now = ms; }, advance: (ms: number) => { now += ms; } };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kindred-data-'));
  // TEST_STORAGE=s3: uploads go to a bucket of an S3 server started for this app (tests/helpers/s3-server.ts).
  const s3 = process.env.TEST_STORAGE === 's3' && !env.STORAGE_URL ? await startS3Server() : null;
  const config = readConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, ...s3?.env, ...env });
  const app = await createAppContext(config, { db: handle, clock, logger: pino({ level: 'silent' }) });
  const api = createApi(app);
  return {
    app,
    clock,
    request(pathname, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('host', init.host ?? headers.get('host') ?? 'localhost:4321');
      return Promise.resolve(api.request(`http://${headers.get('host')}${pathname}`, { ...init, headers }));
    },
    async close() {
      await drop();
      app.storage.close();
      await s3?.stop();
    },
  };
}

/** The test app's API on a real socket, as the server entry mounts it (createApiNodeListener), at `base`. */
export async function listenOnNode(t: TestApp): Promise<{ base: string; port: number; close(): Promise<void> }> {
  const server = createServer(createApiNodeListener(t.app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
