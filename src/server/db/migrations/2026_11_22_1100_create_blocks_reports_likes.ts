import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/** Blocks and reports between profiles, and likes (with the daily limit counted from them). */
export function createBlocksReportsLikes(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('blocks')
        .addColumn('blocker_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('blocked_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('blocks_pk', ['blocker_profile_id', 'blocked_profile_id'])
        .execute();
      await db.schema.createIndex('blocks_blocked_idx').on('blocks').columns(['blocked_profile_id', 'blocker_profile_id']).execute();

      await idColumn(db.schema.createTable('reports'), dialect)
        .addColumn('reporter_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('reason', 'varchar(32)', (c) => c.notNull())
        .addColumn('details', 'text')
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('open'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('reports_status_idx').on('reports').columns(['status', 'created_at']).execute();

      await db.schema
        .createTable('likes')
        .addColumn('liker_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('liked_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('source', 'varchar(16)', (c) => c.notNull())
        .addColumn('is_new', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('likes_pk', ['liker_profile_id', 'liked_profile_id'])
        .execute();
      await db.schema.createIndex('likes_liked_idx').on('likes').columns(['liked_profile_id', 'created_at']).execute();
      await db.schema.createIndex('likes_liker_day_idx').on('likes').columns(['liker_profile_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['likes', 'reports', 'blocks']) await db.schema.dropTable(table).execute();
    },
  };
}
