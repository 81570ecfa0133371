import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database';

/**
 * When PostgreSQL vacuums `profiles`: after this many changed rows plus this share of the table
 * (PostgreSQL's defaults are 50 rows + 20 % for updates and deletes, 1,000 + 20 % for inserts).
 *
 * A search count reads up to 10,001 entries of a profiles index (profiles.service.ts countQuery).
 * It reads the index alone only on heap pages the visibility map marks all-visible; every update
 * (each login moves last_active_at) clears that mark for its page, and only a vacuum sets it again.
 * With the defaults most pages of a busy site stay unmarked between two vacuums and a broad count
 * visits the heap for nearly every entry: 9.4 ms instead of 2.8 ms at 1,000,000 profiles (EXPLAIN
 * ANALYZE, 8,810 heap fetches). Vacuuming after 1,000 rows + 0.5 % keeps most pages marked; such a
 * vacuum only reads the pages changed since the last one (about 2 s at 1,000,000 profiles).
 */
export const PROFILES_AUTOVACUUM = { threshold: 1000, scaleFactor: 0.005 };

export function tuneProfilesAutovacuum(dialect: Dialect) {
  const { threshold, scaleFactor } = PROFILES_AUTOVACUUM;
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql.raw(`alter table profiles set (
        autovacuum_vacuum_threshold = ${threshold}, autovacuum_vacuum_scale_factor = ${scaleFactor},
        autovacuum_vacuum_insert_threshold = ${threshold}, autovacuum_vacuum_insert_scale_factor = ${scaleFactor})`).execute(db);
    },
    async down(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql.raw(`alter table profiles reset (
        autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor,
        autovacuum_vacuum_insert_threshold, autovacuum_vacuum_insert_scale_factor)`).execute(db);
    },
  };
}
