import type { Kysely } from 'kysely';

/**
 * A search by age alone (no gender) could not narrow profiles_search_idx past `invisible`: its count
 * walked every listed profile of the site to find the first 10,001 in the age range (14 ms on
 * PostgreSQL at 100,000 profiles). This index reads just the matches.
 */
export const addAgeSearchIndex = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('profiles_age_idx').on('profiles').columns(['site_id', 'status', 'invisible', 'birth_date']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('profiles_age_idx').execute();
  },
};
