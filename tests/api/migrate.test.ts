import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/server/db/migrate';
import { allMigrations } from '../../src/server/db/migrations';
import { openSecondHandle, openTestDatabase } from '../helpers/test-app';

// PostgreSQL databases that hold several schemas (a URL choosing one with `options=-c search_path=…`), and a
// cluster's first start, where several processes migrate one new database at once. (SQLite runs in one process.)
describe.skipIf(!process.env.TEST_DATABASE_URL)('migrations (postgres)', () => {
  it("create a schema's own bookkeeping when another schema of the database has been migrated already", async () => {
    const other = await openTestDatabase('postgres');
    const fresh = await openTestDatabase('postgres');
    try {
      await migrateToLatest(other.handle);
      // A server process knows only its URL, not the schema's name.
      const { schema: _schema, ...asServer } = fresh.handle;
      expect((await migrateToLatest(asServer)).length).toBe(Object.keys(allMigrations('postgres')).length);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from profiles`.execute(fresh.handle.db);
      expect(rows[0]?.n).toBe(0);
      expect(await migrateToLatest(asServer)).toEqual([]);
    } finally {
      await other.drop();
      await fresh.drop();
    }
  });

  it('run once when four processes start on a new database at the same moment, and every process starts', async () => {
    const { handle, drop } = await openTestDatabase('postgres');
    const others = [openSecondHandle(handle), openSecondHandle(handle), openSecondHandle(handle)];
    try {
      const applied = await Promise.all([handle, ...others].map(({ schema: _schema, ...asServer }) => migrateToLatest(asServer)));
      expect(applied.flat().sort()).toEqual(Object.keys(allMigrations('postgres')).sort());
    } finally {
      await Promise.all(others.map((h) => h.db.destroy()));
      await drop();
    }
  });
});
