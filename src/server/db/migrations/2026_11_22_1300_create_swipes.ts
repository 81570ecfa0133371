import type { Kysely } from 'kysely';

/** Swipe-game decisions; one per swiper, target and day, which also counts the daily allowance. */
export const createSwipes = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('swipes')
      .addColumn('swiper_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('target_profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('decision', 'varchar(8)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('swipes_pk', ['swiper_profile_id', 'day', 'target_profile_id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('swipes').execute();
  },
};
