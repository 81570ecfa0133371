import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { NOTIFICATION_TYPES, type NotificationType } from '../../shared/accounts.contract';
import type { AppContext } from '../app-context';
import type { Database } from '../db/schema';
import { RuleError } from '../rule-error';
import { isLocale, type Locale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';

const secrets = new WeakMap<Kysely<Database>, Promise<Buffer>>();

/** The HMAC key of unsubscribe links: made on first use and kept in `app_keys`, like the VAPID keys. */
export function unsubscribeSecret(db: Kysely<Database>): Promise<Buffer> {
  let secret = secrets.get(db);
  if (!secret) {
    secret = (async () => {
      // A second process starting at the same time keeps the first key.
      await db.insertInto('app_keys').values({ name: 'mail_unsubscribe', value: randomBytes(32).toString('base64url') })
        .onConflict((oc) => oc.column('name').doNothing()).execute();
      const row = await db.selectFrom('app_keys').select('value').where('name', '=', 'mail_unsubscribe').executeTakeFirstOrThrow();
      return Buffer.from(row.value, 'base64url');
    })();
    secret.catch(() => secrets.delete(db));
    secrets.set(db, secret);
  }
  return secret;
}

const sign = (secret: Buffer, siteId: string, userId: number, type: string) =>
  createHmac('sha256', secret).update(`${siteId}\n${userId}\n${type}`).digest().subarray(0, 20);

/** `<user id>.<type>.<HMAC over site, user id and type>`: one member, one type, one site. */
export function unsubscribeToken(secret: Buffer, siteId: string, userId: number, type: NotificationType): string {
  return `${userId}.${type}.${sign(secret, siteId, userId, type).toString('base64url')}`;
}

const TOKEN = /^(\d{1,12})\.([a-z_]{1,40})\.([A-Za-z0-9_-]{20,40})$/;

/** The member and type a token names, when it was signed for this site; null otherwise. */
export function readUnsubscribeToken(secret: Buffer, siteId: string, token: string): { userId: number; type: NotificationType } | null {
  const match = TOKEN.exec(token);
  if (!match || !(NOTIFICATION_TYPES as readonly string[]).includes(match[2])) return null;
  const userId = Number(match[1]);
  const given = Buffer.from(match[3], 'base64url');
  const expected = sign(secret, siteId, userId, match[2]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, type: match[2] as NotificationType };
}

export class UnsubscribeError extends RuleError {}

/**
 * What a link offers: its type, and the language its member chose (the page reached from their mail speaks it).
 * Throws a translated 400/403 for a bad link.
 */
export async function checkUnsubscribeLink(app: AppContext, site: Site, token: string): Promise<{ userId: number; type: NotificationType; language: Locale | null }> {
  const secret = await unsubscribeSecret(app.db.db);
  const found = readUnsubscribeToken(secret, site.id, token);
  if (!found) {
    // Signed for another of our sites: that site's member, not this one's.
    const other = app.sites.sites.some((s) => s.id !== site.id && readUnsubscribeToken(secret, s.id, token));
    throw other
      ? new UnsubscribeError('unsubscribe_other_site', 'unsubscribe.other_site', 403)
      : new UnsubscribeError('unsubscribe_invalid', 'unsubscribe.invalid', 400);
  }
  const user = await app.db.db.selectFrom('users').select(['id', 'language']).where('id', '=', found.userId).where('site_id', '=', site.id).where('erased_at', 'is', null).executeTakeFirst();
  if (!user) throw new UnsubscribeError('unsubscribe_invalid', 'unsubscribe.invalid', 400);
  return { ...found, language: user.language && isLocale(user.language) ? user.language : null };
}

/** One-click unsubscribe (RFC 8058): switches that one e-mail type off for that one member, no login. */
export async function unsubscribe(app: AppContext, site: Site, token: string): Promise<{ type: NotificationType; language: Locale | null }> {
  const { userId, type, language } = await checkUnsubscribeLink(app, site, token);
  await app.db.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('users').select('email_prefs').where('id', '=', userId).executeTakeFirstOrThrow();
    let prefs: Record<string, boolean> = {};
    try {
      prefs = JSON.parse(row.email_prefs || '{}');
    } catch {
      prefs = {};
    }
    await trx.updateTable('users').set({ email_prefs: JSON.stringify({ ...prefs, [type]: false }) }).where('id', '=', userId).execute();
  });
  await app.sessions.invalidate({ users: [userId] });
  return { type, language };
}
