import { describe, expect, it } from 'vitest';
import { openTestDatabase } from '../helpers/test-app';

// PostgreSQL connections prepare the app's data statements once (src/server/db/database.ts
// prepareStatements): the same answers, and a table that changes shape under a prepared statement
// (a migration by another process) does not break the next call.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('prepared statements on PostgreSQL', () => {
  it('prepares data statements by name, answers as before, and survives a column added under them', async () => {
    const { handle, drop } = await openTestDatabase('postgres');
    const pool = handle.raw.pool!;
    const client = await pool.connect();
    try {
      await client.query('create table prep_t (a int not null)', []);
      await client.query('insert into prep_t (a) values ($1), ($2)', [1, 2]);
      expect((await client.query('select * from prep_t where a >= $1 order by a', [1])).rows).toEqual([{ a: 1 }, { a: 2 }]);
      const prepared = (await client.query('select statement from pg_prepared_statements', [])).rows.map((r) => r.statement);
      expect(prepared).toContain('select * from prep_t where a >= $1 order by a');
      expect(prepared).toContain('insert into prep_t (a) values ($1), ($2)');
      // DDL and transaction control are never prepared.
      expect(prepared.some((text: string) => /^\s*(create|begin|commit)/i.test(text))).toBe(false);
      // Another process adds a column: the prepared `select *` now has another result type.
      const other = await pool.connect();
      try {
        await other.query('alter table prep_t add column b int not null default 7', []);
      } finally {
        other.release();
      }
      expect((await client.query('select * from prep_t where a >= $1 order by a', [1])).rows).toEqual([{ a: 1, b: 7 }, { a: 2, b: 7 }]);
      expect((await client.query('select * from prep_t where a >= $1 order by a', [2])).rows).toEqual([{ a: 2, b: 7 }]);
      // Through Kysely, as the app queries.
      const rows = await handle.db.selectFrom('prep_t' as never).selectAll().execute();
      expect(rows).toHaveLength(2);
    } finally {
      client.release();
      await drop();
    }
  });
});
