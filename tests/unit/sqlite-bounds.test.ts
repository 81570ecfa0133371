import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CastBoundsCompiler } from '../../src/server/db/database';

/** A Kysely over an in-memory SQLite database, compiling as the app's does (src/server/db/database.ts). */
function database() {
  const sqlite = new SQLite(':memory:');
  sqlite.exec('create table t (id integer primary key, n integer); insert into t (n) values (1), (2), (3), (4), (5)');
  const dialect = new SqliteDialect({ database: sqlite });
  dialect.createQueryCompiler = () => new CastBoundsCompiler();
  return new Kysely<{ t: { id: number; n: number } }>({ dialect });
}

describe('SQLite LIMIT and OFFSET', () => {
  it('are bound as cast parameters, which SQLite does not read when it plans (a bare `limit ?` re-prepares the statement at every run)', async () => {
    const db = database();
    const q = db.selectFrom('t').select('n').orderBy('n').limit(2).offset(1);
    expect(q.compile().sql).toBe('select "n" from "t" order by "n" limit cast(? as integer) offset cast(? as integer)');
    expect(q.compile().parameters).toEqual([2, 1]);
    expect((await q.execute()).map((r) => r.n)).toEqual([2, 3]);
    // Other values keep their place as parameters.
    expect((await db.selectFrom('t').select('n').where('n', '>', 3).limit(10).execute()).map((r) => r.n)).toEqual([4, 5]);
    await db.destroy();
  });
});
