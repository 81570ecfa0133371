import type { Kysely } from 'kysely';

/**
 * Search pages are ordered "public photo first, then most recently active". With a gender (and
 * country) filter these indexes hand out the first page in that order directly, instead of sorting
 * every match (1,400 of 100,000 for one gender in one country) on each request. Region and age
 * filters are checked along the walk; narrow ones still use profiles_search_idx.
 */
export const addSearchOrderIndexes = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('profiles_gender_country_rank_idx')
      .on('profiles')
      .columns(['site_id', 'status', 'invisible', 'gender', 'country', 'has_photo', 'last_active_at', 'id'])
      .execute();
    await db.schema
      .createIndex('profiles_gender_rank_idx')
      .on('profiles')
      .columns(['site_id', 'status', 'invisible', 'gender', 'has_photo', 'last_active_at', 'id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('profiles_gender_rank_idx').execute();
    await db.schema.dropIndex('profiles_gender_country_rank_idx').execute();
  },
};
