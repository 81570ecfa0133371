import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/**
 * Chat safety (issue 26): `safety_signals` are what the classifiers noticed about a message or an
 * account (a text flag, spam, later an explicit image with its score), shown to the recipient (text
 * flags) and in the staff queue of the member's own site, kept 90 days. `message_fingerprints` are the
 * MinHash of recent texts per sender and recipient, read by the spam rule and kept one day.
 */
export function addSafetySignals(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('safety_signals'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('kind', 'varchar(32)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('message_id', 'integer', (c) => c.references('messages.id').onDelete('cascade'))
        .addColumn('conversation_id', 'integer', (c) => c.references('conversations.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text')
        .addColumn('score', 'real')
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('open'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('safety_signals_queue_idx').on('safety_signals').columns(['site_id', 'status', 'created_at']).execute();
      await db.schema.createIndex('safety_signals_message_idx').on('safety_signals').columns(['message_id']).execute();
      await db.schema.createIndex('safety_signals_user_idx').on('safety_signals').columns(['user_id', 'kind', 'status']).execute();
      await db.schema.createIndex('safety_signals_age_idx').on('safety_signals').columns(['created_at']).execute();

      await db.schema.createTable('message_fingerprints')
        .addColumn('sender_profile_id', 'integer', (c) => c.notNull())
        .addColumn('recipient_profile_id', 'integer', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('message_fingerprints_sender_idx').on('message_fingerprints').columns(['sender_profile_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('message_fingerprints').execute();
      await db.schema.dropTable('safety_signals').execute();
    },
  };
}
