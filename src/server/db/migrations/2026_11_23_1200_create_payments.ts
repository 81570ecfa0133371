import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/**
 * Money (issue 10): payments, discount codes and their redemptions, the provider customer per
 * member, direct-debit mandates, SMS codes and blocks, and the local Mollie-compatible provider's store.
 * Amounts are integer cents; times are epoch ms.
 */
export function createPayments(dialect: Dialect) {
  const real = dialect === 'postgres' ? 'double precision' : 'real';
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('payments'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'varchar(16)', (c) => c.notNull())
        .addColumn('provider_id', 'varchar(64)', (c) => c.unique())
        .addColumn('checkout_url', 'varchar(1024)')
        .addColumn('bundle_id', 'integer', (c) => c.notNull())
        .addColumn('trial', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addColumn('country', 'varchar(2)', (c) => c.notNull())
        .addColumn('currency', 'varchar(3)', (c) => c.notNull())
        .addColumn('list_amount', 'integer', (c) => c.notNull())
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('vat_rate', real, (c) => c.notNull())
        .addColumn('vat_amount', 'integer', (c) => c.notNull())
        .addColumn('method', 'varchar(24)', (c) => c.notNull())
        .addColumn('issuer', 'varchar(64)')
        .addColumn('sequence_type', 'varchar(12)', (c) => c.notNull().defaultTo('oneoff'))
        .addColumn('customer_id', 'varchar(64)')
        .addColumn('mandate_id', 'varchar(64)')
        .addColumn('mandate_reference', 'varchar(64)')
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('discount_id', 'integer')
        .addColumn('discount_code', 'varchar(64)')
        .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('refunded_amount', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('charged_back_amount', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('credits_taken_back', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('credits_owed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('paid_at', 'bigint')
        .execute();
      await db.schema.createIndex('payments_user_idx').on('payments').columns(['user_id', 'created_at']).execute();

      await idColumn(db.schema.createTable('discount_codes'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('code', 'varchar(64)', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull().defaultTo('standard'))
        .addColumn('country', 'varchar(2)')
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('expires_at', 'bigint')
        .addColumn('value_percentage', real, (c) => c.notNull())
        .addColumn('currency', 'varchar(3)')
        .addColumn('minimum_order_value', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
        .addColumn('validity', 'varchar(16)', (c) => c.notNull().defaultTo('once-per-user'))
        .addColumn('paymentmethods', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      // Codes are matched case-insensitively: `code` is stored upper-case.
      await db.schema.createIndex('discount_codes_site_code_idx').on('discount_codes').columns(['site_id', 'code']).unique().execute();

      await db.schema
        .createTable('discount_redemptions')
        .addColumn('discount_id', 'integer', (c) => c.notNull().references('discount_codes.id').onDelete('cascade'))
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('payment_id', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('discount_redemptions_pk', ['discount_id', 'user_id'])
        .execute();

      await db.schema
        .createTable('payment_customers')
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'varchar(16)', (c) => c.notNull())
        .addColumn('customer_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_customers_pk', ['user_id', 'provider'])
        .execute();

      await idColumn(db.schema.createTable('dd_mandates'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('provider', 'varchar(16)', (c) => c.notNull())
        .addColumn('mandate_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('mandate_reference', 'varchar(64)', (c) => c.notNull())
        .addColumn('account_holder', 'varchar(70)', (c) => c.notNull())
        .addColumn('iban_last4', 'varchar(4)', (c) => c.notNull())
        .addColumn('iban_country', 'varchar(2)', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('mobile', 'varchar(20)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('dd_mandates_user_idx').on('dd_mandates').column('user_id').execute();

      await idColumn(db.schema.createTable('sms_codes'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('mobile', 'varchar(20)', (c) => c.notNull())
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('tries', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('sms_codes_user_idx').on('sms_codes').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('dd_blocks')
        .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('reason', 'varchar(32)', (c) => c.notNull())
        .addColumn('payment_id', 'integer')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      // The local provider's objects (payments, customers, mandates, refunds) as Mollie JSON documents.
      await db.schema
        .createTable('local_mollie_objects')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('parent_id', 'varchar(64)')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('local_mollie_parent_idx').on('local_mollie_objects').columns(['parent_id', 'kind']).execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['local_mollie_objects', 'dd_blocks', 'sms_codes', 'dd_mandates', 'payment_customers', 'discount_redemptions', 'discount_codes', 'payments']) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
