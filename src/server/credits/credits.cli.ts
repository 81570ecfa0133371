import { randomUUID } from 'node:crypto';
import { createAppContext } from '../app-context';
import { normalizeEmail } from '../accounts/tokens';
import { readConfig } from '../config';
import { InsufficientCreditsError, applyCredits } from './ledger';

// `npm run credits -- <site-id> <email> <amount>`: an admin grant (negative takes credits back), one ledger row.
const [siteId, email, amountText] = process.argv.slice(2);
const amount = Number(amountText);
if (!siteId || !email || !Number.isSafeInteger(amount) || amount === 0) {
  console.error('Usage: npm run credits -- <site-id> <email> <amount>');
  process.exit(2);
}
const app = await createAppContext(readConfig());
const user = await app.db.db.selectFrom('users').select('id').where('site_id', '=', siteId).where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
let code = 0;
if (!user) {
  console.error(`No account ${email} on ${siteId}.`);
  code = 1;
} else {
  try {
    const balance = await app.db.db.transaction().execute((trx) =>
      applyCredits(trx, { userId: user.id, delta: amount, reason: 'admin', key: `admin:${randomUUID()}`, now: app.clock.now() }));
    // With REDIS_URL the running app processes show the new balance at once (without it, within SESSION_CACHE_MS).
    await app.sessions.invalidate({ users: [user.id] });
    console.log(`${email} on ${siteId} now has ${balance} credits.`);
  } catch (err) {
    if (!(err instanceof InsufficientCreditsError)) throw err;
    console.error('The balance cannot go below zero.');
    code = 1;
  }
}
await app.close();
process.exit(code);
