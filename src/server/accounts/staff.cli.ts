import { STAFF_ROLES, type StaffRole } from '../../shared/admin.contract';
import { grantStaffRole, revokeStaff } from '../admin/staff.service';
import { createAppContext } from '../app-context';
import { readConfig } from '../config';

// `npm run staff -- <site-id> <email> [--role admin|moderator|operator|finance] [--revoke] [--reset-2fa]`:
// makes an existing account staff of its site with a role (default moderator), takes it back, or resets its TOTP.
const args = process.argv.slice(2);
const [siteId, email] = args.filter((a) => !a.startsWith('--') && !STAFF_ROLES.includes(a as StaffRole));
const roleIndex = args.indexOf('--role');
const role = (roleIndex >= 0 ? args[roleIndex + 1] : 'moderator') as StaffRole;
if (!siteId || !email || !STAFF_ROLES.includes(role)) {
  console.error(`Usage: npm run staff -- <site-id> <email> [--role ${STAFF_ROLES.join('|')}] [--revoke] [--reset-2fa]`);
  process.exit(2);
}
const app = await createAppContext(readConfig());
let ok: boolean;
let what: string;
if (args.includes('--revoke')) {
  ok = await revokeStaff(app, siteId, email, 'role');
  what = 'a member';
} else if (args.includes('--reset-2fa')) {
  ok = await revokeStaff(app, siteId, email, 'totp');
  what = 'staff without two-factor login (enrols again at /admin)';
} else {
  ok = await grantStaffRole(app, siteId, email, role);
  what = `staff (${role}); two-factor enrolment at /admin on the next login`;
}
console.log(ok ? `${email} on ${siteId} is now ${what}.` : `No account ${email} on ${siteId}.`);
await app.close();
process.exit(ok ? 0 : 1);
