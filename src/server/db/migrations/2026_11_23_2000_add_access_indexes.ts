import type { Kysely } from 'kysely';

/**
 * Indexes the security checks read: which photo owns a file under /uploads (one indexed lookup per
 * private file), a member's reports of one profile (reported once), and the conversations a member
 * started (the free-conversation limit counts them inside the send transaction).
 */
export const addAccessIndexes = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('photos_filename_idx').on('photos').column('filename').execute();
    await db.schema.createIndex('photos_thumb_filename_idx').on('photos').column('thumb_filename').execute();
    await db.schema.createIndex('reports_reporter_idx').on('reports').columns(['reporter_profile_id', 'profile_id']).execute();
    await db.schema.createIndex('conversations_starter_idx').on('conversations').column('starter_profile_id').execute();
  },
  async down(db: Kysely<unknown>) {
    for (const name of ['conversations_starter_idx', 'reports_reporter_idx', 'photos_thumb_filename_idx', 'photos_filename_idx']) {
      await db.schema.dropIndex(name).execute();
    }
  },
};
