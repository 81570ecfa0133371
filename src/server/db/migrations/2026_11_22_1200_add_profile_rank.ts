import { type Kysely, sql } from 'kysely';

/**
 * Search order is "with a public photo first, then most recently active": keep that as columns an
 * index can walk, and put `invisible` into the filter index so counts never touch the table.
 */
export const addProfileRank = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('profiles').addColumn('has_photo', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await sql`update profiles set has_photo = 1 where exists (
      select 1 from photos where photos.profile_id = profiles.id and photos.is_main = 1 and photos.status = 'active')`.execute(db);
    await db.schema.dropIndex('profiles_search_idx').execute();
    await db.schema
      .createIndex('profiles_search_idx')
      .on('profiles')
      .columns(['site_id', 'status', 'invisible', 'gender', 'country', 'region', 'birth_date'])
      .execute();
    await db.schema.dropIndex('profiles_site_active_idx').execute();
    await db.schema
      .createIndex('profiles_rank_idx')
      .on('profiles')
      .columns(['site_id', 'status', 'invisible', 'has_photo', 'last_active_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('profiles_rank_idx').execute();
    await db.schema.dropIndex('profiles_search_idx').execute();
    await db.schema.createIndex('profiles_search_idx').on('profiles').columns(['site_id', 'status', 'gender', 'country', 'region', 'birth_date']).execute();
    await db.schema.createIndex('profiles_site_active_idx').on('profiles').columns(['site_id', 'last_active_at']).execute();
    await db.schema.alterTable('profiles').dropColumn('has_photo').execute();
  },
};
