import * as OTPAuth from 'otpauth';
import { expect } from 'vitest';
import type { StaffRole } from '../../src/shared/admin.contract';
import { grantStaffRole } from '../../src/server/admin/staff.service';
import { post, signupMember } from './members';
import type { TestApp } from './test-app';

/** The current TOTP code for a secret at the test clock's time (an offset in steps for a fresh one). */
export function totpCode(t: TestApp, secret: string, stepOffset = 0) {
  return OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), timestamp: t.clock.now() + stepOffset * 30_000 });
}

/** Makes an existing member staff with a role and enrols and passes TOTP on that session. */
export async function enrolStaff(t: TestApp, cookie: string, host: string, email: string, role: StaffRole) {
  const user = await t.app.db.db.selectFrom('users').select(['email', 'site_id']).where('email_normalized', '=', email).executeTakeFirstOrThrow();
  expect(await grantStaffRole(t.app, user.site_id, user.email, role)).toBe(true);
  const enrol = await t.request('/api/admin/totp-enrol.php', { ...post(cookie, {}), host });
  expect(enrol.status).toBe(200);
  const { secret } = (await enrol.json()) as { secret: string };
  const confirm = await t.request('/api/admin/totp-confirm.php', { ...post(cookie, { code: totpCode(t, secret) }), host });
  expect(confirm.status).toBe(200);
  return { secret, recoveryCodes: ((await confirm.json()) as { recovery_codes: string[] }).recovery_codes };
}

/** A staff member with a role on the default site who has enrolled TOTP and passed it: cookie, ids, secret, recovery codes. */
export async function staffSession(t: TestApp, name: string, role: StaffRole, host = 'localhost:4321') {
  const member = await signupMember(t, name, host === 'localhost:4321' ? {} : { host });
  const email = `${name.toLowerCase()}@example.com`;
  return { ...member, email, ...(await enrolStaff(t, member.cookie, host, email, role)) };
}
