import type { Kysely } from 'kysely';

/**
 * Explicit-image scores (issue 26, docs/safety-images.md): one row per chat image or profile photo,
 * written by the `score_image` job; pruned after 90 days. And the member's setting to see explicit
 * chat images unblurred.
 */
export const addImageSafetyScores = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('image_safety_scores')
      // 'chat' (messages.id) or 'photo' (photos.id).
      .addColumn('subject', 'varchar(8)', (c) => c.notNull())
      .addColumn('subject_id', 'integer', (c) => c.notNull())
      .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
      // 'pending' until the job ran; 'scored', or 'failed' when the image could not be read.
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('drawing', 'real')
      .addColumn('hentai', 'real')
      .addColumn('neutral', 'real')
      .addColumn('porn', 'real')
      .addColumn('sexy', 'real')
      .addColumn('explicit', 'integer')
      .addColumn('error', 'varchar(200)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('scored_at', 'bigint')
      .addPrimaryKeyConstraint('image_safety_scores_pk', ['subject', 'subject_id'])
      .execute();
    await db.schema.createIndex('image_safety_scores_created_idx').on('image_safety_scores').column('created_at').execute();
    await db.schema.alterTable('users').addColumn('show_explicit_images', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('users').dropColumn('show_explicit_images').execute();
    await db.schema.dropTable('image_safety_scores').execute();
  },
};
