import { Migrator } from 'kysely';
import type { Db } from './database';
import { allMigrations } from './migrations';

/** Brings the schema up to date; throws when a migration fails. */
export async function migrateToLatest({ db, dialect, schema }: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => allMigrations(dialect) },
    // Without it Kysely may find another schema's bookkeeping tables and skip creating its own.
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
