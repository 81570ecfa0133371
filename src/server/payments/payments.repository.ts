import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { Dialect } from '../db/database';
import type { Database, PaymentRow, PaymentTable } from '../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

export async function insertPayment(db: Q, values: Insertable<PaymentTable>): Promise<PaymentRow> {
  return db.insertInto('payments').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updatePayment(db: Q, id: number, patch: Updateable<PaymentTable>) {
  await db.updateTable('payments').set(patch).where('id', '=', id).execute();
}

/** The row, locked for this transaction on PostgreSQL (SQLite transactions already run one at a time). */
export async function lockPayment(trx: Q, dialect: Dialect, id: number): Promise<PaymentRow | undefined> {
  const q = trx.selectFrom('payments').selectAll().where('id', '=', id);
  return (dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
}

/** The member's balance, locked on PostgreSQL so a take-back cannot race a spend. */
export async function lockBalance(trx: Q, dialect: Dialect, userId: number): Promise<number> {
  const q = trx.selectFrom('users').select('credits').where('id', '=', userId);
  const row = await (dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirstOrThrow();
  return row.credits;
}

export async function findPaymentByProviderId(db: Q, providerId: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('provider_id', '=', providerId).executeTakeFirst();
}

export async function findPaymentById(db: Q, id: number): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One of the member's payments on this site. */
export async function findMemberPayment(db: Q, siteId: string, userId: number, id: number): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('id', '=', id).where('site_id', '=', siteId).where('user_id', '=', userId).executeTakeFirst();
}

export async function listMemberPayments(db: Q, siteId: string, userId: number, limit = 200): Promise<PaymentRow[]> {
  return db.selectFrom('payments').selectAll().where('site_id', '=', siteId).where('user_id', '=', userId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The member's last paid payment that left a mandate (stored card, PayPal or SEPA), for repeat orders. */
export async function lastRepeatablePayment(db: Q, siteId: string, userId: number): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('site_id', '=', siteId).where('user_id', '=', userId)
    .where('paid_at', 'is not', null).where('mandate_id', 'is not', null).where('customer_id', 'is not', null).where('trial', '=', 0)
    .orderBy('paid_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function hasPaidTrial(db: Q, siteId: string, userId: number): Promise<boolean> {
  const row = await db.selectFrom('payments').select('id').where('site_id', '=', siteId).where('user_id', '=', userId)
    .where('trial', '=', 1).where('paid_at', 'is not', null).executeTakeFirst();
  return Boolean(row);
}

export async function findCustomer(db: Q, userId: number, provider: string): Promise<string | null> {
  const row = await db.selectFrom('payment_customers').select('customer_id').where('user_id', '=', userId).where('provider', '=', provider).executeTakeFirst();
  return row?.customer_id ?? null;
}

export async function saveCustomer(db: Q, userId: number, provider: string, customerId: string, now: number): Promise<string> {
  await db.insertInto('payment_customers').values({ user_id: userId, provider, customer_id: customerId, created_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'provider']).doNothing()).execute();
  return (await findCustomer(db, userId, provider)) as string;
}

export async function profileCountryOf(db: Q, userId: number): Promise<string | null> {
  const row = await db.selectFrom('profiles').select('country').where('user_id', '=', userId).executeTakeFirst();
  return row?.country ?? null;
}

export async function blockDirectDebit(db: Q, userId: number, reason: 'chargeback' | 'failed_collection', paymentId: number, now: number) {
  await db.insertInto('dd_blocks').values({ user_id: userId, reason, payment_id: paymentId, created_at: now })
    .onConflict((oc) => oc.column('user_id').doNothing()).execute();
}

/** The member's order made with this idempotency key. */
export async function findOrderByKey(db: Q, userId: number, orderKey: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('user_id', '=', userId).where('order_key', '=', orderKey).executeTakeFirst();
}

/** The member's order that holds (open) or consumed (paid) a one-time offer, if any. */
export async function findOfferHolder(db: Q, userId: number, offerKey: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('user_id', '=', userId).where('offer_key', '=', offerKey)
    .where('status', 'not in', ['failed', 'canceled', 'expired']).executeTakeFirst();
}

/** Open or pending payments created before `before` (the settlement job's work), oldest first. */
export async function listUnsettled(db: Q, before: number, limit: number): Promise<PaymentRow[]> {
  return db.selectFrom('payments').selectAll().where('status', 'in', ['open', 'pending']).where('created_at', '<', before)
    .orderBy('created_at').limit(limit).execute();
}
