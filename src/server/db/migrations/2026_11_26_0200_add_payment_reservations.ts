import { type Kysely, sql } from 'kysely';

/**
 * Money is exact under parallel requests (issue 23), enforced by the database itself:
 * - `offer_key` names the one-time offer an order carries (`discount:<id>` for a once-per-user code,
 *   the welcome code and the time bonus; `trial` for the trial package). One order per member and
 *   offer may hold it unless it failed, was cancelled or expired: an open order reserves it, a paid
 *   one consumes it.
 * - `order_key` is the client's idempotency key (repeat orders): a double click or a retry is the
 *   same order.
 * - At most one open recurring charge (repeat order, direct debit) per member at a time.
 * - `refunding_at` claims a payment while a refund is asked of the provider: parallel refunds of one
 *   payment refund it once.
 */
export const addPaymentReservations = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('payments').addColumn('offer_key', 'varchar(64)').execute();
    await db.schema.alterTable('payments').addColumn('order_key', 'varchar(64)').execute();
    await db.schema.alterTable('payments').addColumn('refunding_at', 'bigint').execute();
    await db.schema.createIndex('payments_offer_key_idx').on('payments').columns(['user_id', 'offer_key']).unique()
      .where(sql<boolean>`offer_key is not null and status not in ('failed', 'canceled', 'expired')`).execute();
    await db.schema.createIndex('payments_order_key_idx').on('payments').columns(['user_id', 'order_key']).unique()
      .where(sql<boolean>`order_key is not null`).execute();
    await db.schema.createIndex('payments_open_recurring_idx').on('payments').column('user_id').unique()
      .where(sql<boolean>`sequence_type = 'recurring' and status = 'open'`).execute();
    // The settlement job reads open payments by age.
    await db.schema.createIndex('payments_open_idx').on('payments').columns(['status', 'created_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const index of ['payments_open_idx', 'payments_open_recurring_idx', 'payments_order_key_idx', 'payments_offer_key_idx']) await db.schema.dropIndex(index).execute();
    for (const column of ['refunding_at', 'order_key', 'offer_key']) await db.schema.alterTable('payments').dropColumn(column).execute();
  },
};
