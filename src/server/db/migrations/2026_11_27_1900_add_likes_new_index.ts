import type { Kysely } from 'kysely';

/**
 * A member's received likes, new ones first: the new-likes badge (counted on every page and `/api/user.php`) and
 * the likes screen's received list (new first, then newest). By `likes_liked_idx` (liked, created_at) both read
 * every like the member ever received, and the list sorted them all; a popular profile has thousands.
 */
export const addLikesNewIndex = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('likes_liked_new_idx').on('likes').columns(['liked_profile_id', 'is_new', 'created_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('likes_liked_new_idx').execute();
  },
};
