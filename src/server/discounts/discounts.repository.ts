import type { Kysely, Transaction } from 'kysely';
import type { Database, DiscountCodeRow, DiscountCodeTable } from '../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

export async function findDiscountByCode(db: Q, siteId: string, code: string): Promise<DiscountCodeRow | undefined> {
  return db.selectFrom('discount_codes').selectAll().where('site_id', '=', siteId).where('code', '=', code.toUpperCase()).executeTakeFirst();
}

export async function findDiscountById(db: Q, id: number): Promise<DiscountCodeRow | undefined> {
  return db.selectFrom('discount_codes').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Inserts a code unless one with that text exists on the site; returns the stored row either way. */
export async function ensureDiscount(db: Q, values: Omit<DiscountCodeTable, 'id'>): Promise<DiscountCodeRow> {
  const code = values.code.toUpperCase();
  await db.insertInto('discount_codes').values({ ...values, code }).onConflict((oc) => oc.columns(['site_id', 'code']).doNothing()).execute();
  return (await findDiscountByCode(db, values.site_id, code)) as DiscountCodeRow;
}

export async function insertDiscount(db: Q, values: Omit<DiscountCodeTable, 'id'>): Promise<DiscountCodeRow> {
  const row = await db.insertInto('discount_codes').values({ ...values, code: values.code.toUpperCase() }).returningAll().executeTakeFirstOrThrow();
  return row;
}

export async function isRedeemed(db: Q, discountId: number, userId: number): Promise<boolean> {
  const row = await db.selectFrom('discount_redemptions').select('payment_id').where('discount_id', '=', discountId).where('user_id', '=', userId).executeTakeFirst();
  return Boolean(row);
}

/** Records a use; a second use by the same member of the same code is ignored (the first counts). */
export async function recordRedemption(db: Q, discountId: number, userId: number, paymentId: number, now: number) {
  await db.insertInto('discount_redemptions').values({ discount_id: discountId, user_id: userId, payment_id: paymentId, created_at: now })
    .onConflict((oc) => oc.columns(['discount_id', 'user_id']).doNothing()).execute();
}

export async function listDiscounts(db: Q, siteId: string): Promise<DiscountCodeRow[]> {
  return db.selectFrom('discount_codes').selectAll().where('site_id', '=', siteId).where('kind', 'in', ['standard', 'welcome']).orderBy('id').execute();
}

export async function setDiscountStatus(db: Q, siteId: string, code: string, status: 'active' | 'inactive') {
  const result = await db.updateTable('discount_codes').set({ status }).where('site_id', '=', siteId).where('code', '=', code.toUpperCase()).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
