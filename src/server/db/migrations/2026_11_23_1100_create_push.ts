import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/** Web-push subscriptions per member, and keys the app generates once and keeps (VAPID). */
export function createPush(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('push_subscriptions'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('endpoint', 'varchar(1024)', (c) => c.notNull().unique())
        .addColumn('p256dh', 'varchar(256)', (c) => c.notNull())
        .addColumn('auth', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('push_subscriptions_user_idx').on('push_subscriptions').column('user_id').execute();
      await db.schema
        .createTable('app_keys')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('app_keys').execute();
      await db.schema.dropTable('push_subscriptions').execute();
    },
  };
}
