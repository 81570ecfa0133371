import type { Kysely } from 'kysely';

/**
 * Both sides of a conversation by its id: chat_participants' primary key starts with profile_id, so a
 * lookup by conversation alone (who is in a chat whose image was checked, the cascade when a conversation
 * is deleted with an account) read every row. Only a new conversation's two rows write this index;
 * a send's updates leave conversation_id alone.
 */
export const addParticipantsConversationIndex = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('chat_participants_conversation_idx').on('chat_participants').column('conversation_id').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('chat_participants_conversation_idx').execute();
  },
};
