import type { Currency, DiscountCode, PaymentMethodId, TimeBonus, TimeBonusResponse } from '../../shared/payments.contract';
import { WELCOME_DISCOUNT_DAYS } from '../../shared/payments.contract';
import { TIME_BONUS_PERCENTAGE, TIME_BONUS_SECONDS } from '../../shared/constants';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import type { DiscountCodeRow, User } from '../db/schema';
import { RuleError } from '../rule-error';
import * as repo from './discounts.repository';

const TIME_BONUS_MS = TIME_BONUS_SECONDS * 1000;
const DAY_MS = 86_400_000;

/** A stored code as the contract shows it; `expiresAt` overrides the row's expiry (per-member windows). */
export function presentDiscount(row: DiscountCodeRow, now: number, expiresAt: number | null = row.expires_at): DiscountCode {
  return {
    code: row.code,
    country: row.country,
    user_id: row.user_id,
    expires: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    value_percentage: row.value_percentage,
    currency: row.currency as Currency | null,
    minimum_order_value: row.minimum_order_value,
    status: row.status,
    validity: row.validity,
    expired: expiresAt !== null && expiresAt <= now,
    paymentmethods: JSON.parse(row.paymentmethods) as PaymentMethodId[],
    percentage: Math.round(row.value_percentage),
  };
}

/** A usable discount for a member: the stored row (for redemption) and what the contract shows. */
export interface ActiveDiscount {
  row: DiscountCodeRow;
  view: DiscountCode;
}

/** Whether a code fits an order: payment country, currency, minimum order value and method. */
export function discountFits(d: DiscountCode, order: { country: string; currency: string; listAmount: number; method?: PaymentMethodId }): boolean {
  if (d.country && d.country !== order.country) return false;
  if (d.currency && d.currency !== order.currency) return false;
  if (d.minimum_order_value > 0 && order.listAmount < d.minimum_order_value) return false;
  if (order.method && d.paymentmethods.length > 0 && !d.paymentmethods.includes(order.method)) return false;
  return true;
}

/** The time bonus for a member (SPEC §4): non-paid, signed up less than 14,400 s ago; its code made once. */
export async function timeBonusFor(app: AppContext, site: Site, user: User | null): Promise<(TimeBonus & { row: DiscountCodeRow }) | null> {
  if (!user || user.paid_user || user.site_id !== site.id) return null;
  const now = app.clock.now();
  const deadline = user.created_at + TIME_BONUS_MS;
  if (now >= deadline) return null;
  const code = `BONUS${TIME_BONUS_PERCENTAGE}-${user.id}`;
  // Every page a member views in those hours shows the bonus: its code is read (with whether it was used) in
  // one statement, and written only the first time.
  let found = await repo.findDiscountWithRedemption(app.db.db, site.id, code, user.id);
  if (!found) {
    await repo.ensureDiscount(app.db.db, {
      site_id: site.id, code, kind: 'time_bonus', country: null, user_id: user.id,
      expires_at: deadline, value_percentage: TIME_BONUS_PERCENTAGE, currency: null, minimum_order_value: 0, status: 'active',
      validity: 'once-per-user', paymentmethods: '[]', created_at: now,
    });
    found = await repo.findDiscountWithRedemption(app.db.db, site.id, code, user.id);
  }
  if (!found || found.row.user_id !== user.id || found.redeemed) return null;
  return { isVisible: true, deadline, server_now: now, discount: presentDiscount(found.row, now), row: found.row };
}

/** The time bonus as members see it (without its code's row). */
const shownBonus = (bonus: (TimeBonus & { row: DiscountCodeRow }) | null): TimeBonus | null =>
  bonus ? { isVisible: bonus.isVisible, deadline: bonus.deadline, server_now: bonus.server_now, discount: bonus.discount } : null;

/** GET /api/time-bonus.php's answer, which member pages in the bonus hours show too (src/server/pages/payment-screens.ts). */
export async function timeBonusAnswer(app: AppContext, site: Site, user: User): Promise<TimeBonusResponse> {
  return { time_bonus: shownBonus(await timeBonusFor(app, site, user)) };
}

/**
 * The welcome code for members who never paid, within WELCOME_DISCOUNT_DAYS of signup: the newest active
 * code made with `npm run discount -- create … --welcome`, else the site's WELCOME<percentage> code.
 */
export async function welcomeDiscountFor(app: AppContext, site: Site, user: User | null): Promise<ActiveDiscount | null> {
  if (!user || user.paid_user || user.site_id !== site.id) return null;
  const now = app.clock.now();
  const until = user.created_at + WELCOME_DISCOUNT_DAYS * DAY_MS;
  if (now >= until) return null;
  let row = await app.db.db.selectFrom('discount_codes').selectAll().where('site_id', '=', site.id).where('kind', '=', 'welcome')
    .where('status', '=', 'active').where('user_id', 'is', null).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id', 'desc').limit(1).executeTakeFirst();
  const pct = site.payments.welcome_discount_percentage;
  if (!row && pct > 0) {
    row = await repo.ensureDiscount(app.db.db, {
      site_id: site.id, code: `WELCOME${Math.round(pct)}`, kind: 'welcome', country: null, user_id: null, expires_at: null,
      value_percentage: pct, currency: null, minimum_order_value: 0, status: 'active', validity: 'once-per-user', paymentmethods: '[]', created_at: now,
    });
  }
  if (row?.status !== 'active' || (row.expires_at !== null && row.expires_at <= now) || (await repo.isRedeemed(app.db.db, row.id, user.id))) return null;
  return { row, view: presentDiscount(row, now, row.expires_at === null ? until : Math.min(row.expires_at, until)) };
}

/**
 * Looks a typed code up for a member: 'Code not found' (unknown, another member's, switched off),
 * expired, or 'Code already used' (once-per-user and redeemed). The account-deletion alternative's
 * "STAY<delete_discount>" becomes the member's own retention code.
 */
export async function findCodeFor(app: AppContext, site: Site, user: User | null, raw: string): Promise<ActiveDiscount> {
  const now = app.clock.now();
  let code = raw.trim().toUpperCase();
  const retention = site.company.delete_discount;
  if (user && retention > 0 && code === `STAY${retention}`) {
    const row = await repo.ensureDiscount(app.db.db, {
      site_id: site.id, code: `STAY${retention}-${user.id}`, kind: 'retention', country: null, user_id: user.id, expires_at: null,
      value_percentage: retention, currency: null, minimum_order_value: 0, status: 'active', validity: 'once-per-user', paymentmethods: '[]', created_at: now,
    });
    code = row.code;
  }
  const row = await repo.findDiscountByCode(app.db.db, site.id, code);
  if (row?.status !== 'active' || (row.user_id !== null && row.user_id !== user?.id)) throw new RuleError('code_not_found', 'payments.code_not_found', 404);
  if (row.kind === 'time_bonus') {
    const bonus = await timeBonusFor(app, site, user);
    if (!bonus || bonus.row.id !== row.id) throw new RuleError('code_expired', 'payments.code_expired', 410);
  }
  if (row.kind === 'welcome') {
    const welcome = await welcomeDiscountFor(app, site, user);
    if (user && !welcome && (await repo.isRedeemed(app.db.db, row.id, user.id))) throw new RuleError('code_used', 'payments.code_used', 409);
    if (!welcome) throw new RuleError('code_expired', 'payments.code_expired', 410);
    return welcome;
  }
  if (row.expires_at !== null && row.expires_at <= now) throw new RuleError('code_expired', 'payments.code_expired', 410);
  if (user && row.validity === 'once-per-user' && (await repo.isRedeemed(app.db.db, row.id, user.id))) throw new RuleError('code_used', 'payments.code_used', 409);
  return { row, view: presentDiscount(row, now) };
}

/** The active discount (SPEC §4): a given code, else the time bonus if present, else the welcome code. */
export async function activeDiscountFor(app: AppContext, site: Site, user: User | null, code?: string): Promise<{ discount: ActiveDiscount | null; timeBonus: TimeBonus | null }> {
  const bonus = await timeBonusFor(app, site, user);
  const timeBonus = shownBonus(bonus);
  if (code) return { discount: await findCodeFor(app, site, user, code), timeBonus };
  if (bonus) return { discount: { row: bonus.row, view: bonus.discount }, timeBonus };
  return { discount: await welcomeDiscountFor(app, site, user), timeBonus };
}
