import { sql } from 'kysely';
import type { StatMetric } from '../../shared/admin.contract';
import type { AppContext } from '../app-context';
import type { Db } from '../db/database';
import { siteFunnel } from '../landers/funnel.service';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => Math.floor(ms / DAY_MS);
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** A chart or table: column names and rows (first column the UTC day for series). */
export interface StatTable {
  metric: StatMetric;
  columns: string[];
  rows: (string | number)[][];
}

/** UTC day number of an ISO date. */
export function dayNumber(iso: string) {
  return dayOf(Date.parse(`${iso}T00:00:00Z`));
}

/** Integer day bucket of a millisecond column, the same on SQLite and PostgreSQL (integer division). */
const bucket = (column: string) => sql<number>`${sql.ref(column)} / ${sql.lit(DAY_MS)}`;

function series(metric: StatMetric, from: number, to: number, names: string[], rows: { day: number | string; name?: string; n: number | string }[]): StatTable {
  const byKey = new Map<string, number>();
  for (const r of rows) byKey.set(`${Number(r.day)}|${r.name ?? names[0]}`, Number(r.n));
  const out: (string | number)[][] = [];
  for (let d = from; d <= to; d++) out.push([isoDay(d), ...names.map((name) => byKey.get(`${d}|${name}`) ?? 0)]);
  return { metric, columns: ['day', ...names], rows: out };
}

/** One dashboard figure of a site for the UTC days from..to (inclusive). */
export async function siteStat(app: AppContext, siteId: string, metric: StatMetric, from: number, to: number): Promise<StatTable> {
  const db = app.db.db;
  const start = from * DAY_MS;
  const end = (to + 1) * DAY_MS;
  switch (metric) {
    case 'signups':
    case 'activations': {
      const column = metric === 'signups' ? 'users.created_at' : 'users.confirmed_at';
      const rows = await db.selectFrom('users').select([bucket(column).as('day'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('site_id', '=', siteId).where('role', '=', 'member').where(sql.ref(column), '>=', start).where(sql.ref(column), '<', end)
        .groupBy(bucket(column)).execute();
      return series(metric, from, to, [metric], rows);
    }
    case 'active_members': {
      const rows = await db.selectFrom('daily_active').select(['day', (eb) => eb.fn.countAll<number>().as('n')])
        .where('site_id', '=', siteId).where('day', '>=', from).where('day', '<=', to).groupBy('day').execute();
      return series(metric, from, to, ['active_members'], rows);
    }
    case 'messages': {
      const rows = await db.selectFrom('messages').innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
        .innerJoin('profiles', 'profiles.id', 'messages.sender_profile_id')
        .select([bucket('messages.created_at').as('day'), sql<string>`case when profiles.fictional = 1 then 'by_operators' else 'by_members' end`.as('name'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('conversations.site_id', '=', siteId).where('messages.created_at', '>=', start).where('messages.created_at', '<', end)
        .groupBy([bucket('messages.created_at'), sql`case when profiles.fictional = 1 then 'by_operators' else 'by_members' end`]).execute();
      return series(metric, from, to, ['by_members', 'by_operators'], rows);
    }
    case 'likes':
    case 'matches': {
      let q = db.selectFrom('likes as l').innerJoin('profiles as p', 'p.id', 'l.liker_profile_id')
        .select([bucket('l.created_at').as('day'), (eb) => eb.fn.countAll<number>().as('n')])
        .where('p.site_id', '=', siteId).where('l.created_at', '>=', start).where('l.created_at', '<', end);
      // A match is counted once, on the day of the like that completed it.
      if (metric === 'matches') {
        q = q.where(({ exists, selectFrom }) => exists(selectFrom('likes as r').select('r.liker_profile_id')
          .whereRef('r.liker_profile_id', '=', 'l.liked_profile_id').whereRef('r.liked_profile_id', '=', 'l.liker_profile_id')
          .where((eb) => eb.or([eb('r.created_at', '<', eb.ref('l.created_at')), eb.and([eb('r.created_at', '=', eb.ref('l.created_at')), eb('r.liker_profile_id', '<', eb.ref('l.liker_profile_id'))])]))));
      }
      const rows = await q.groupBy(bucket('l.created_at')).execute();
      return series(metric, from, to, [metric], rows);
    }
    case 'revenue': {
      const rows = await db.selectFrom('payments')
        .select([bucket('paid_at').as('day'), 'method', 'country', 'currency', (eb) => eb.fn.countAll<number>().as('payments'), (eb) => eb.fn.sum<number>('amount').as('cents')])
        .where('site_id', '=', siteId).where('paid_at', '>=', start).where('paid_at', '<', end)
        .groupBy([bucket('paid_at'), 'method', 'country', 'currency']).orderBy(bucket('paid_at')).orderBy('currency').orderBy('method').orderBy('country').execute();
      return {
        metric, columns: ['day', 'method', 'country', 'currency', 'payments', 'amount'],
        rows: rows.map((r) => [isoDay(Number(r.day)), r.method, r.country, r.currency, Number(r.payments), (Number(r.cents) / 100).toFixed(2)]),
      };
    }
    case 'refunds': {
      const rows = await db.selectFrom('payments')
        .select([bucket('updated_at').as('day'), 'currency', (eb) => eb.fn.sum<number>('refunded_amount').as('refunded'), (eb) => eb.fn.sum<number>('charged_back_amount').as('charged_back'),
          (eb) => eb.fn.countAll<number>().as('payments')])
        .where('site_id', '=', siteId).where('updated_at', '>=', start).where('updated_at', '<', end)
        .where((eb) => eb.or([eb('refunded_amount', '>', 0), eb('charged_back_amount', '>', 0)]))
        .groupBy([bucket('updated_at'), 'currency']).orderBy(bucket('updated_at')).execute();
      return {
        metric, columns: ['day', 'currency', 'payments', 'refunded', 'charged_back'],
        rows: rows.map((r) => [isoDay(Number(r.day)), r.currency, Number(r.payments), (Number(r.refunded) / 100).toFixed(2), (Number(r.charged_back) / 100).toFixed(2)]),
      };
    }
    case 'funnel': {
      const rows = await siteFunnel(db, siteId);
      return {
        metric, columns: ['lander', 'slug', 'network', 'views', 'signups_started', 'accounts_created', 'activated', 'first_purchases', 'bounces'],
        rows: rows.map((r) => [r.lander, r.slug, r.network, r.views, r.signups_started, r.accounts_created, r.activated, r.first_purchases, r.bounces]),
      };
    }
  }
}

/** RFC 4180 CSV of a table (cells with comma, quote or newline quoted; formula-leading cells neutralised). */
export function toCsv(table: StatTable): string {
  const cell = (value: string | number) => {
    let text = String(value);
    if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${[table.columns, ...table.rows].map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

const seenByDb = new WeakMap<Db, Set<string>>();
/** Counts a member as active today (once per process and day; the primary key dedupes across processes). */
export function recordDailyActive(db: Db, siteId: string, userId: number, now: number) {
  const day = dayOf(now);
  const key = `${day}:${userId}`;
  let seen = seenByDb.get(db);
  if (!seen) {
    seen = new Set();
    seenByDb.set(db, seen);
  }
  if (seen.has(key)) return;
  if (seen.size > 200_000) seen.clear();
  seen.add(key);
  db.db.insertInto('daily_active').values({ site_id: siteId, day, user_id: userId })
    .onConflict((oc) => oc.columns(['site_id', 'day', 'user_id']).doNothing()).execute().catch(() => seen?.delete(key));
}
