import * as v from 'valibot';
import type { DiscountCreateSchema } from '../../shared/admin.contract';
import { CURRENCIES } from '../../shared/payments.contract';
import type { AppContext } from '../app-context';
import { findDiscountByCode, insertDiscount } from '../discounts/discounts.repository';
import { type StaffCaller, StaffError, audit } from './staff.service';

export const PaymentFilterSchema = v.object({
  status: v.optional(v.picklist(['open', 'pending', 'paid', 'failed', 'canceled', 'expired', 'refunded', 'charged_back'], 'admin.error.invalid')),
  method: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9]{2,32}$/, 'admin.error.invalid'))),
  country: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/, 'admin.error.country'))),
  from: v.optional(v.pipe(v.string(), v.isoDate('admin.error.date'))),
  to: v.optional(v.pipe(v.string(), v.isoDate('admin.error.date'))),
  user_id: v.optional(v.pipe(v.string(), v.regex(/^\d{1,10}$/, 'admin.error.invalid'), v.transform(Number))),
});
export type PaymentFilter = v.InferOutput<typeof PaymentFilterSchema>;

/** Payments of the site, newest first, filtered; with totals per currency of what is listed. */
export async function listPayments(app: AppContext, staff: StaffCaller, filter: PaymentFilter) {
  let q = app.db.db.selectFrom('payments').leftJoin('users', 'users.id', 'payments.user_id')
    .select(['payments.id', 'payments.user_id', 'users.email', 'payments.status', 'payments.method', 'payments.country', 'payments.currency', 'payments.amount',
      'payments.credits', 'payments.refunded_amount', 'payments.charged_back_amount', 'payments.discount_code', 'payments.created_at', 'payments.paid_at'])
    .where('payments.site_id', '=', staff.siteId);
  if (filter.status) q = q.where('payments.status', '=', filter.status);
  if (filter.method) q = q.where('payments.method', '=', filter.method);
  if (filter.country) q = q.where('payments.country', '=', filter.country);
  if (filter.user_id) q = q.where('payments.user_id', '=', filter.user_id);
  if (filter.from) q = q.where('payments.created_at', '>=', Date.parse(`${filter.from}T00:00:00Z`));
  if (filter.to) q = q.where('payments.created_at', '<', Date.parse(`${filter.to}T00:00:00Z`) + 86_400_000);
  const rows = await q.orderBy('payments.id', 'desc').limit(500).execute();
  const totals: Record<string, { paid: number; refunded: number }> = {};
  for (const r of rows) {
    totals[r.currency] ??= { paid: 0, refunded: 0 };
    if (r.paid_at !== null) totals[r.currency].paid += r.amount;
    totals[r.currency].refunded += r.refunded_amount + r.charged_back_amount;
  }
  return { payments: rows, totals };
}

/** Discount codes and welcome campaigns of the site with how often each was used. */
export async function listDiscountUse(app: AppContext, staff: StaffCaller) {
  const db = app.db.db;
  return db.selectFrom('discount_codes')
    .leftJoin('discount_redemptions', 'discount_redemptions.discount_id', 'discount_codes.id')
    .leftJoin('payments', (j) => j.onRef('payments.id', '=', 'discount_redemptions.payment_id').on('payments.paid_at', 'is not', null))
    .select((eb) => [
      'discount_codes.id', 'discount_codes.code', 'discount_codes.kind', 'discount_codes.value_percentage', 'discount_codes.status', 'discount_codes.validity',
      'discount_codes.country', 'discount_codes.currency', 'discount_codes.minimum_order_value', 'discount_codes.expires_at', 'discount_codes.created_at',
      eb.fn.count<number>('discount_redemptions.payment_id').as('uses'),
      eb.fn.count<number>('payments.id').as('paid_uses'),
    ])
    .where('discount_codes.site_id', '=', staff.siteId)
    .where('discount_codes.kind', 'in', ['standard', 'welcome'])
    .groupBy(['discount_codes.id', 'discount_codes.code', 'discount_codes.kind', 'discount_codes.value_percentage', 'discount_codes.status', 'discount_codes.validity',
      'discount_codes.country', 'discount_codes.currency', 'discount_codes.minimum_order_value', 'discount_codes.expires_at', 'discount_codes.created_at'])
    .orderBy('discount_codes.id', 'desc')
    .execute()
    .then((rows) => rows.map((r) => ({ ...r, uses: Number(r.uses), paid_uses: Number(r.paid_uses) })));
}

/** Creates a discount code or welcome campaign (checked like the CLI does). */
export async function createDiscount(app: AppContext, staff: StaffCaller, input: v.InferOutput<typeof DiscountCreateSchema>) {
  const site = app.sites.byIdOrNull(staff.siteId);
  if (!site) throw new StaffError('not_found', 'admin.error.invalid', 404);
  const now = app.clock.now();
  if (input.country && !site.payments.countries[input.country]) throw new StaffError('country', 'admin.error.country', 400, {}, { country: 'admin.error.country' });
  if (input.currency && !(CURRENCIES as readonly string[]).includes(input.currency)) throw new StaffError('currency', 'admin.error.currency', 400, {}, { currency: 'admin.error.currency' });
  const expires = input.expires ? Date.parse(`${input.expires}T23:59:59Z`) : null;
  if (expires !== null && expires <= now) throw new StaffError('expires', 'admin.error.expires', 400, {}, { expires: 'admin.error.expires' });
  const db = app.db.db;
  if (await findDiscountByCode(db, site.id, input.code)) throw new StaffError('exists', 'admin.error.code_exists', 409, {}, { code: 'admin.error.code_exists' });
  return db.transaction().execute(async (trx) => {
    const row = await insertDiscount(trx, {
      site_id: site.id, code: input.code, kind: input.welcome ? 'welcome' : 'standard', country: input.country ?? null, user_id: null, expires_at: expires,
      value_percentage: input.percentage, currency: input.currency ?? null, minimum_order_value: input.minimum_order_value, status: 'active',
      validity: input.validity, paymentmethods: '[]', created_at: now,
    });
    await audit(trx, staff, now, { action: 'discount_create', targetType: 'discount', targetId: row.id, reason: input.reason, after: { code: row.code, percentage: row.value_percentage, kind: row.kind } });
    return row;
  });
}

/** Disables or re-enables a code of the site. */
export async function setDiscountActive(app: AppContext, staff: StaffCaller, input: { id: number; status: 'active' | 'inactive'; reason: string }) {
  const db = app.db.db;
  const now = app.clock.now();
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('discount_codes').select(['id', 'status', 'code']).where('id', '=', input.id).where('site_id', '=', staff.siteId)
      .where('kind', 'in', ['standard', 'welcome']).executeTakeFirst();
    if (!row) throw new StaffError('not_found', 'admin.error.discount_not_found', 404);
    if (row.status === input.status) throw new StaffError('unchanged', 'admin.error.unchanged', 409);
    await trx.updateTable('discount_codes').set({ status: input.status }).where('id', '=', row.id).execute();
    await audit(trx, staff, now, { action: 'discount_status', targetType: 'discount', targetId: row.id, reason: input.reason, before: { status: row.status }, after: { status: input.status } });
    return { id: row.id, status: input.status };
  });
}
