import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema';

export type Dialect = 'sqlite' | 'postgres';
export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the tables live in, when not the default (tests use one per file). */
  schema?: string;
  /** The driver underneath, for libraries that need it (rate limiter stores). */
  raw: { sqlite?: SQLite.Database; pool?: pg.Pool };
}

// BIGINT (epoch milliseconds) and COUNT() come back as numbers, as they do from SQLite.
pg.types.setTypeParser(20, (value) => Number(value));

/** Opens the database named by a URL: `sqlite:<file>` / `sqlite::memory:` or `postgres://…`. */
export function openDatabase(url: string): Db {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({ connectionString: url, max: Number(process.env.PG_POOL_SIZE ?? 10) });
    return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), dialect: 'postgres', raw: { pool } };
  }
  const file = url.replace(/^sqlite:(\/\/)?/, '') || ':memory:';
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), dialect: 'sqlite', raw: { sqlite } };
}
