import { createAppContext } from '../app-context';
import { readConfig } from '../config';
import { normalizeEmail } from './tokens';

// `npm run staff -- <site-id> <email> [--revoke]`: gives an existing account the staff role (moderation).
const [siteId, email, flag] = process.argv.slice(2);
if (!siteId || !email) {
  console.error('Usage: npm run staff -- <site-id> <email> [--revoke]');
  process.exit(2);
}
const app = await createAppContext(readConfig());
const result = await app.db.db
  .updateTable('users')
  .set({ role: flag === '--revoke' ? 'member' : 'staff' })
  .where('site_id', '=', siteId)
  .where('email_normalized', '=', normalizeEmail(email))
  .returning('id')
  .executeTakeFirst();
// With REDIS_URL the running app processes drop their cached session of this member at once
// (without it, within SESSION_CACHE_MS).
if (result) await app.sessions.invalidate({ users: [result.id] });
console.log(result ? `${email} on ${siteId} is now ${flag === '--revoke' ? 'a member' : 'staff'}.` : `No account ${email} on ${siteId}.`);
await app.close();
process.exit(result ? 0 : 1);
