import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/**
 * The job queue (src/server/jobs), which member has an open tab in which process (presence for
 * notification mails), and the per member and type state of batched notification mails.
 */
export function createJobs(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('jobs'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        // A periodic slot (`weekly_update:2026-W48`) or a one-off key: never two jobs with the same one.
        .addColumn('unique_key', 'varchar(200)', (c) => c.unique())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('run_at', 'bigint', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('locked_by', 'varchar(64)')
        .addColumn('lease_until', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .execute();
      await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_at']).execute();
      await db.schema
        .createTable('member_presence')
        .addColumn('process_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('seen_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('member_presence_pk', ['user_id', 'process_id'])
        .execute();
      await db.schema
        .createTable('mail_digests')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'varchar(32)', (c) => c.notNull())
        .addColumn('pending_since', 'bigint')
        .addColumn('pending_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_actor', 'varchar(64)')
        .addColumn('last_sent_at', 'bigint')
        .addPrimaryKeyConstraint('mail_digests_pk', ['user_id', 'type'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('mail_digests').execute();
      await db.schema.dropTable('member_presence').execute();
      await db.schema.dropTable('jobs').execute();
    },
  };
}
