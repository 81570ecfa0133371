import type { Kysely } from 'kysely';

/**
 * The operator inbox's per-conversation state (issue 27, docs/admin.md): which operator holds the
 * conversation (a claim that runs out at `claim_expires_at`, so two operators never answer the same
 * member at once) and the notes operators keep about it.
 */
export const addOperatorClaims = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('operator_conversations')
      .addColumn('conversation_id', 'integer', (c) => c.primaryKey())
      .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('claimed_by', 'integer')
      .addColumn('claim_expires_at', 'bigint')
      .addColumn('notes', 'text')
      .addColumn('notes_by', 'integer')
      .addColumn('notes_updated_at', 'bigint')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('operator_conversations').execute();
  },
};
