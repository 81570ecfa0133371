import { sql } from 'kysely';
import type { AppContext } from '../app-context';
import { inboxQueue } from './inbox.service';
import { safetyCounts } from './safety.service';
import type { StaffCaller } from './staff.service';

const DAY_MS = 86_400_000;

/** A figure of a period and of the period before it (the tile shows the change). */
export interface Figure { now: number; before: number }
/** Money per currency (cents), this period and the one before. */
export type MoneyFigure = Record<string, Figure>;

export interface PeriodTiles {
  signups: Figure;
  activations: Figure;
  first_purchases: Figure;
  /** Paid in the period, less what was refunded or charged back of those payments. */
  revenue: MoneyFigure;
}

export interface DashboardTiles {
  today: PeriodTiles;
  week: PeriodTiles;
  paying_members: number;
  /** Lander funnel, all time: visits → accounts → first purchases. */
  conversion: { views: number; signups: number; payments: number };
  inbox_waiting: number;
  photos_waiting: number;
  safety_accounts: number;
  reports_open: number;
}

/** The figures at a glance for one site: today (UTC) against yesterday, the last 7 days against the 7 before. */
export async function dashboardTiles(app: AppContext, staff: StaffCaller): Promise<DashboardTiles> {
  const now = app.clock.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const week = today - 6 * DAY_MS;
  const [todayTiles, weekTiles, paying, funnel, queue, photos, safety, reports] = await Promise.all([
    periodTiles(app, staff.siteId, today, today + DAY_MS, today - DAY_MS),
    periodTiles(app, staff.siteId, week, today + DAY_MS, week - 7 * DAY_MS),
    app.db.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where('site_id', '=', staff.siteId).where('role', '=', 'member')
      .where('paid_user', '=', 1).where('deleted_at', 'is', null).executeTakeFirstOrThrow(),
    app.db.db.selectFrom('lander_funnel').select((eb) => [eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'),
      eb.fn.coalesce(eb.fn.sum<number>('accounts_created'), eb.lit(0)).as('signups'), eb.fn.coalesce(eb.fn.sum<number>('first_purchases'), eb.lit(0)).as('payments')])
      .where('site_id', '=', staff.siteId).executeTakeFirstOrThrow(),
    inboxQueue(app, staff),
    app.db.db.selectFrom('photos').innerJoin('profiles', 'profiles.id', 'photos.profile_id').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profiles.site_id', '=', staff.siteId).where('photos.status', '=', 'under inspection').executeTakeFirstOrThrow(),
    safetyCounts(app, staff.siteId),
    app.db.db.selectFrom('reports').innerJoin('profiles', 'profiles.id', 'reports.profile_id').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('profiles.site_id', '=', staff.siteId).where('reports.status', '=', 'open').executeTakeFirstOrThrow(),
  ]);
  return {
    today: todayTiles,
    week: weekTiles,
    paying_members: Number(paying.n),
    conversion: { views: Number(funnel.views), signups: Number(funnel.signups), payments: Number(funnel.payments) },
    inbox_waiting: queue.length,
    photos_waiting: Number(photos.n),
    safety_accounts: safety.accounts,
    reports_open: Number(reports.n),
  };
}

/** The period [start, end) and the one of the same length before it, starting at `previous`. */
async function periodTiles(app: AppContext, siteId: string, start: number, end: number, previous: number): Promise<PeriodTiles> {
  const [a, b] = await Promise.all([periodFigures(app, siteId, start, end), periodFigures(app, siteId, previous, start)]);
  const pair = (k: 'signups' | 'activations' | 'first_purchases') => ({ now: a[k], before: b[k] });
  const revenue: MoneyFigure = {};
  for (const currency of new Set([...Object.keys(a.revenue), ...Object.keys(b.revenue)]).values()) {
    revenue[currency] = { now: a.revenue[currency] ?? 0, before: b.revenue[currency] ?? 0 };
  }
  return { signups: pair('signups'), activations: pair('activations'), first_purchases: pair('first_purchases'), revenue };
}

async function periodFigures(app: AppContext, siteId: string, start: number, end: number) {
  const db = app.db.db;
  const count = (column: 'created_at' | 'confirmed_at') => db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId).where('role', '=', 'member').where(column, '>=', start).where(column, '<', end).executeTakeFirstOrThrow();
  const [signups, activations, firsts, revenue] = await Promise.all([
    count('created_at'),
    count('confirmed_at'),
    // Members whose first paid payment falls in the period.
    db.selectFrom((eb) => eb.selectFrom('payments').select(['user_id', (e) => e.fn.min('paid_at').as('first')])
      .where('site_id', '=', siteId).where('paid_at', 'is not', null).groupBy('user_id').as('f'))
      .select((eb) => eb.fn.countAll<number>().as('n')).where('f.first', '>=', start).where('f.first', '<', end).executeTakeFirstOrThrow(),
    db.selectFrom('payments').select(['currency', sql<number>`sum(amount - refunded_amount - charged_back_amount)`.as('net')])
      .where('site_id', '=', siteId).where('paid_at', '>=', start).where('paid_at', '<', end).groupBy('currency').execute(),
  ]);
  return {
    signups: Number(signups.n), activations: Number(activations.n), first_purchases: Number(firsts.n),
    revenue: Object.fromEntries(revenue.map((r) => [r.currency, Number(r.net)])) as Record<string, number>,
  };
}

/** Other sites where the same person is staff with the dashboard (admin or finance): the console's site picker. */
export async function otherConsoles(app: AppContext, staff: StaffCaller) {
  const me = await app.db.db.selectFrom('users').select('email_normalized').where('id', '=', staff.userId).executeTakeFirst();
  if (!me) return [];
  const rows = await app.db.db.selectFrom('staff_accounts').innerJoin('users', 'users.id', 'staff_accounts.user_id')
    .select(['staff_accounts.site_id', 'staff_accounts.role']).where('users.email_normalized', '=', me.email_normalized)
    .where('staff_accounts.site_id', '!=', staff.siteId).where('staff_accounts.role', 'in', ['admin', 'finance']).execute();
  return rows.flatMap((r) => {
    const site = app.sites.byIdOrNull(r.site_id);
    return site ? [{ id: site.id, name: site.name, url: `${app.sites.origin(site)}/admin` }] : [];
  });
}
