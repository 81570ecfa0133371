import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/**
 * Conversations between two profiles, one participant row per side (unread count, hidden after a
 * delete), messages, the per-member event log behind SSE resync, and auto-like bookkeeping.
 */
export function createChat(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('conversations'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        // The lower profile id first, so a pair has exactly one conversation.
        .addColumn('profile_low_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('profile_high_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('starter_profile_id', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('conversations_pair_uq', ['profile_low_id', 'profile_high_id'])
        .execute();

      await db.schema
        .createTable('chat_participants')
        .addColumn('conversation_id', 'integer', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('partner_profile_id', 'integer', (c) => c.notNull())
        .addColumn('unread_count', 'integer', (c) => c.notNull().defaultTo(0))
        // Messages up to this id were deleted by this side; 0 = none.
        .addColumn('cleared_message_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_message_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_message_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('chat_participants_pk', ['profile_id', 'conversation_id'])
        .execute();
      await db.schema.createIndex('chat_participants_list_idx').on('chat_participants').columns(['profile_id', 'hidden', 'last_message_at']).execute();

      await idColumn(db.schema.createTable('messages'), dialect)
        .addColumn('conversation_id', 'integer', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('sender_profile_id', 'integer', (c) => c.notNull())
        .addColumn('kind', 'varchar(8)', (c) => c.notNull())
        .addColumn('body', 'text')
        .addColumn('gift', 'varchar(32)')
        .addColumn('image', 'text')
        .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('messages_client_uq', ['sender_profile_id', 'client_id'])
        .execute();
      await db.schema.createIndex('messages_conversation_idx').on('messages').columns(['conversation_id', 'id']).execute();

      // What each member's open tabs receive; SSE resumes from here after a reconnect.
      await idColumn(db.schema.createTable('events'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'varchar(16)', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_user_idx').on('events').columns(['user_id', 'id']).execute();
      await db.schema.createIndex('events_created_idx').on('events').column('created_at').execute();

      // A received like the match/like modal has shown (auto-like shows each at most once).
      await db.schema.alterTable('likes').addColumn('shown_at', 'bigint').execute();
      await db.schema.alterTable('reports').addColumn('message_id', 'integer').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('reports').dropColumn('message_id').execute();
      await db.schema.alterTable('likes').dropColumn('shown_at').execute();
      for (const table of ['events', 'messages', 'chat_participants', 'conversations']) await db.schema.dropTable(table).execute();
    },
  };
}
