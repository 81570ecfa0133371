import type { Kysely } from 'kysely';

/** Lander funnel counts per site × lander × slug × network (network '' for direct traffic). */
export const createLanderFunnel = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('lander_funnel')
      .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('lander', 'varchar(32)', (c) => c.notNull())
      .addColumn('slug', 'varchar(64)', (c) => c.notNull())
      .addColumn('network', 'varchar(64)', (c) => c.notNull())
      .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('signups_started', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('accounts_created', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('activated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('first_purchases', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bounces', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('lander_funnel_pk', ['site_id', 'lander', 'slug', 'network'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('lander_funnel').execute();
  },
};
