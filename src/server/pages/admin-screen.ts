import type { AstroCookies } from 'astro';
import { ADMIN_SECTIONS, type Permission, can } from '../../shared/admin.contract';
import { findStaff, type StaffCaller } from '../admin/staff.service';
import { AUTH_COOKIE } from '../api/session';
import { LOCALE_TAGS, type Locale } from '../../shared/locales';

/**
 * The staff member for a console page: a login redirect for visitors, the 404 for members and other
 * sites' staff, the second-factor page until this session passed it, and 403 for a role without the right.
 */
export async function staffForPage(locals: App.Locals, cookies: AstroCookies, url: URL, permission: Permission | null):
  Promise<{ staff: StaffCaller } | { redirect: string } | { status: 403 | 404 }> {
  const { user, ctx, services } = locals;
  const next = encodeURIComponent(url.pathname + url.search);
  if (!user) return { redirect: `/login?next=${next}` };
  const row = await services.app.db.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirst();
  const staff = await findStaff(services.app, ctx.site, row ?? null, cookies.get(AUTH_COOKIE)?.value ?? null, ctx.ip);
  if (!staff) return { status: 404 };
  if (permission === null) return { staff };
  if (!staff.verified) return { redirect: `/admin/login?next=${next}` };
  if (!can(staff.role, permission)) return { status: 403 };
  return { staff };
}

/** The console sections this role may open (the navigation). */
export function sectionsFor(staff: StaffCaller) {
  return ADMIN_SECTIONS.filter((s) => can(staff.role, s.permission));
}

/**
 * How the console writes times, days and amounts for its staff, in their language: "29 Nov 2026, 18:38 UTC",
 * "29 Nov 2026", "€ 39,95" (console times are UTC, said so). Every console page uses these (ISO strings and
 * "39.95 EUR" were shown before on some).
 */
export function staffFormats(locale: Locale) {
  const tag = LOCALE_TAGS[locale];
  const dateTime = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const date = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' });
  const currencies = new Map<string, Intl.NumberFormat>();
  return {
    when: (ms: number | null | undefined) => (ms ? `${dateTime.format(new Date(ms))} UTC` : '—'),
    day: (ms: number | null | undefined) => (ms ? date.format(new Date(ms)) : '—'),
    money: (cents: number, currency: string) => {
      let format = currencies.get(currency);
      if (!format) {
        format = new Intl.NumberFormat(tag, { style: 'currency', currency });
        currencies.set(currency, format);
      }
      return format.format(cents / 100);
    },
  };
}
