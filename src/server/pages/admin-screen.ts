import type { AstroCookies } from 'astro';
import { ADMIN_SECTIONS, type Permission, can } from '../../shared/admin.contract';
import { findStaff, type StaffCaller } from '../admin/staff.service';
import { AUTH_COOKIE } from '../api/session';

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
