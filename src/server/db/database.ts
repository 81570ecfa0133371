import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
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

/**
 * Kysely prepares a fresh statement for every query; preparing costs more than running a small
 * query, so statements are kept by their SQL text (queries are parameterised, so the set is small).
 */
function withStatementCache(sqlite: SQLite.Database, max = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          statement = target.prepare(source);
          if (cache.size >= max) cache.delete(cache.keys().next().value as string);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

const directSqlite = new WeakMap<object, SQLite.Database>();
/**
 * The (statement-caching) better-sqlite3 handle behind a Kysely instance, for the few hot reads that
 * run Kysely-compiled SQL synchronously; null for PostgreSQL and inside transactions.
 */
export function directSqliteOf(db: object): SQLite.Database | null {
  return directSqlite.get(db) ?? null;
}

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
  // FULL: every commit reaches the disk before it is reported, so no credit or payment write is lost
  // on a power cut (WAL with NORMAL may drop the last commits). Costs one WAL fsync per write.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const cached = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached }) });
  directSqlite.set(db, cached);
  return { db, dialect: 'sqlite', raw: { sqlite } };
}


/**
 * A read that runs on every request, compiled once per database: `build` is called with the
 * placeholder values, and each run swaps in the real ones. On SQLite it runs synchronously on the
 * statement-caching handle (preparing and Kysely's async path cost more than the query itself).
 */
export function hotQuery<Args extends unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => { compile(): CompiledQuery },
  placeholders: Args,
) {
  const compiledByDb = new WeakMap<object, CompiledQuery>();
  return async (db: Kysely<Database>, ...args: Args): Promise<Row | undefined> => {
    let compiled = compiledByDb.get(db);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      compiledByDb.set(db, compiled);
    }
    const parameters = compiled.parameters.map((p) => {
      const slot = placeholders.indexOf(p);
      return slot === -1 ? p : args[slot];
    });
    const direct = directSqliteOf(db);
    return direct
      ? (direct.prepare(compiled.sql).get(...parameters) as Row | undefined)
      : (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters))).rows[0];
  };
}
