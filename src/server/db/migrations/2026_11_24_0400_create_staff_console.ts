import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/**
 * The operator console (issue 11): staff roles with TOTP, their two-factor sessions, recovery codes,
 * an append-only audit log, member suspension and bans, who wrote an operator's answer, and daily activity.
 */
export function createStaffConsole(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('staff_accounts')
        .addColumn('user_id', 'integer', (c) => c.primaryKey())
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('role', 'varchar(16)', (c) => c.notNull())
        .addColumn('totp_secret', 'varchar(128)')
        .addColumn('totp_pending_secret', 'varchar(128)')
        .addColumn('totp_enabled_at', 'bigint')
        .addColumn('totp_last_step', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('staff_sessions')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('verified_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('staff_sessions_user').on('staff_sessions').column('user_id').execute();
      await idColumn(db.schema.createTable('staff_recovery_codes'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('staff_recovery_codes_user').on('staff_recovery_codes').column('user_id').execute();
      await idColumn(db.schema.createTable('staff_audit_log'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('staff_user_id', 'integer', (c) => c.notNull())
        .addColumn('staff_email', 'varchar(320)', (c) => c.notNull())
        .addColumn('staff_role', 'varchar(16)', (c) => c.notNull())
        .addColumn('action', 'varchar(64)', (c) => c.notNull())
        .addColumn('target_type', 'varchar(32)')
        .addColumn('target_id', 'integer')
        .addColumn('reason', 'text')
        .addColumn('before', 'text')
        .addColumn('after', 'text')
        .addColumn('ip', 'varchar(64)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('staff_audit_site_time').on('staff_audit_log').columns(['site_id', 'id']).execute();
      // Append-only in the database itself: no UPDATE or DELETE succeeds, whoever asks.
      if (dialect === 'postgres') {
        await sql`CREATE OR REPLACE FUNCTION staff_audit_log_append_only() RETURNS trigger AS $$
          BEGIN RAISE EXCEPTION 'staff_audit_log is append-only'; END; $$ LANGUAGE plpgsql`.execute(db);
        await sql`CREATE TRIGGER staff_audit_log_no_change BEFORE UPDATE OR DELETE ON staff_audit_log
          FOR EACH ROW EXECUTE FUNCTION staff_audit_log_append_only()`.execute(db);
      } else {
        await sql`CREATE TRIGGER staff_audit_log_no_update BEFORE UPDATE ON staff_audit_log
          BEGIN SELECT RAISE(ABORT, 'staff_audit_log is append-only'); END`.execute(db);
        await sql`CREATE TRIGGER staff_audit_log_no_delete BEFORE DELETE ON staff_audit_log
          BEGIN SELECT RAISE(ABORT, 'staff_audit_log is append-only'); END`.execute(db);
      }
      await db.schema.alterTable('users').addColumn('suspended_until', 'bigint').execute();
      await db.schema.alterTable('users').addColumn('banned_at', 'bigint').execute();
      await db.schema.alterTable('messages').addColumn('operator_user_id', 'integer').execute();
      await db.schema
        .createTable('daily_active')
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('day', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('daily_active_pk', ['site_id', 'day', 'user_id'])
        .execute();
      await db.schema.createIndex('users_site_created').on('users').columns(['site_id', 'created_at']).execute();
      await db.schema.createIndex('payments_site_created').on('payments').columns(['site_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      if (dialect === 'postgres') await sql`DROP FUNCTION IF EXISTS staff_audit_log_append_only() CASCADE`.execute(db);
      for (const table of ['daily_active', 'staff_audit_log', 'staff_recovery_codes', 'staff_sessions', 'staff_accounts']) await db.schema.dropTable(table).execute();
    },
  };
}
