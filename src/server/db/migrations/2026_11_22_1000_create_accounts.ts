import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/** Members, sessions, single-use tokens, mails, notifications and the credits ledger. */
export function createAccounts(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('users'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('email', 'varchar(254)', (c) => c.notNull())
        .addColumn('email_normalized', 'varchar(254)', (c) => c.notNull())
        .addColumn('password_hash', 'varchar(200)')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('member'))
        .addColumn('credits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('paid_user', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('language', 'varchar(5)', (c) => c.notNull())
        .addColumn('email_prefs', 'text', (c) => c.notNull())
        .addColumn('push_prefs', 'text', (c) => c.notNull())
        .addColumn('tracking', 'text')
        .addColumn('signup_message', 'text')
        .addColumn('target_profile_id', 'integer')
        .addColumn('api_signup', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('confirmed_at', 'bigint')
        .addColumn('deleted_at', 'bigint')
        .addColumn('erased_at', 'bigint')
        .execute();
      await db.schema.createIndex('users_site_email_uq').on('users').columns(['site_id', 'email_normalized']).unique().execute();
      await db.schema.createIndex('users_deleted_idx').on('users').columns(['deleted_at', 'erased_at']).execute();

      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(200)')
        .execute();
      await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('user_tokens')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'varchar(24)', (c) => c.notNull())
        .addColumn('payload', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('user_tokens_user_kind_idx').on('user_tokens').columns(['user_id', 'kind', 'created_at']).execute();

      await idColumn(db.schema.createTable('mails'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('to_address', 'varchar(254)', (c) => c.notNull())
        .addColumn('subject', 'varchar(300)', (c) => c.notNull())
        .addColumn('html', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await idColumn(db.schema.createTable('notifications'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('type', 'varchar(32)', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('read_at', 'bigint')
        .execute();
      await db.schema.createIndex('notifications_user_idx').on('notifications').columns(['user_id', 'created_at']).execute();

      await idColumn(db.schema.createTable('credit_ledger'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('delta', 'integer', (c) => c.notNull())
        .addColumn('reason', 'varchar(24)', (c) => c.notNull())
        .addColumn('idempotency_key', 'varchar(120)', (c) => c.notNull())
        .addColumn('balance_after', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credit_ledger_key_uq').on('credit_ledger').columns(['user_id', 'idempotency_key']).unique().execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['credit_ledger', 'notifications', 'mails', 'user_tokens', 'sessions', 'users']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
