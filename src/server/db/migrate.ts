import { type Kysely, Migrator, sql } from 'kysely';
import type { Db } from './database';
import type { Database } from './schema';
import { allMigrations } from './migrations';

/** Brings the schema up to date; throws when a migration fails. */
export async function migrateToLatest({ db, dialect, schema }: Db): Promise<string[]> {
  const run = async (on: Kysely<Database>, tablesSchema: string | undefined) => {
    const migrator = new Migrator({
      db: on,
      provider: { getMigrations: async () => allMigrations(dialect) },
      // Kysely looks for its bookkeeping tables in every schema of the database unless told which one: it found
      // another schema's, skipped creating its own and then failed ("relation kysely_migration_lock does not exist").
      ...(tablesSchema ? { migrationTableSchema: tablesSchema } : {}),
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  };
  if (dialect !== 'postgres') return run(db, schema);
  return db.connection().execute(async (conn) => {
    // The schema this connection writes to (a URL may choose it with `options=-c search_path=…`).
    const own = schema ?? (await sql<{ name: string }>`select current_schema() as name`.execute(conn)).rows[0]?.name;
    // Processes started at once on a new database (a cluster's first start) take turns, under a session lock per schema.
    const key = `kindred-migrations:${own ?? 'public'}`;
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(conn);
    try {
      return await run(conn, own);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
    }
  });
}
