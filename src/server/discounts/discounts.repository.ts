import type { Kysely, Transaction } from 'kysely';
import { preparedQuery } from '../db/database';
import type { Database, DiscountCodeRow, DiscountCodeTable } from '../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

export async function findDiscountByCode(db: Q, siteId: string, code: string): Promise<DiscountCodeRow | undefined> {
  return db.selectFrom('discount_codes').selectAll().where('site_id', '=', siteId).where('code', '=', code.toUpperCase()).executeTakeFirst();
}

/** A code by site and code, with whether this member has used it: one statement. */
export async function findDiscountWithRedemption(db: Q, siteId: string, code: string, userId: number): Promise<{ row: DiscountCodeRow; redeemed: boolean } | undefined> {
  const found = (await discountWithRedemption(db, siteId, code.toUpperCase(), userId)).rows[0];
  if (!found) return undefined;
  const { redeemed, ...row } = found;
  return { row: row as DiscountCodeRow, redeemed: Boolean(redeemed) };
}
const discountWithRedemption = preparedQuery((db, siteId: string, code: string, userId: number) => db
  .selectFrom('discount_codes')
  .selectAll('discount_codes')
  .select((eb) => eb.exists(eb.selectFrom('discount_redemptions').select('discount_redemptions.payment_id')
    .whereRef('discount_redemptions.discount_id', '=', 'discount_codes.id').where('discount_redemptions.user_id', '=', userId)).as('redeemed'))
  .where('discount_codes.site_id', '=', siteId)
  .where('discount_codes.code', '=', code), ['\u0000site', '\u0000code', -750001]);

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
