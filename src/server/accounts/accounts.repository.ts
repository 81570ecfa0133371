import type { Kysely, Transaction } from 'kysely';
import type { Database, TokenKind, User } from '../db/schema';
import { hashToken, randomToken } from './tokens';

type Q = Kysely<Database> | Transaction<Database>;

export function findUserByEmail(db: Q, siteId: string, emailNormalized: string) {
  return db.selectFrom('users').selectAll().where('site_id', '=', siteId).where('email_normalized', '=', emailNormalized).executeTakeFirst();
}

export function findUserById(db: Q, id: number) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findProfileOfUser(db: Q, userId: number) {
  return db.selectFrom('profiles').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export function findMainPhoto(db: Q, profileId: number) {
  return db
    .selectFrom('photos')
    .select(['filename', 'thumb_filename', 'status'])
    .where('profile_id', '=', profileId)
    .where('is_main', '=', 1)
    .executeTakeFirst();
}

/** The user behind a session token, if the session is live and the account not deleted. */
export async function findSessionUser(db: Q, tokenHash: string, now: number): Promise<User | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .selectAll('users')
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function createSession(db: Q, userId: number, now: number, ttlMs: number, userAgent: string | null): Promise<string> {
  const token = randomToken();
  await db
    .insertInto('sessions')
    .values({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: now + ttlMs, user_agent: userAgent?.slice(0, 200) ?? null })
    .execute();
  return token;
}

export function deleteSession(db: Q, token: string) {
  return db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
}

export function deleteUserSessions(db: Q, userId: number) {
  return db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export async function createUserToken(db: Q, userId: number, kind: TokenKind, now: number, ttlMs: number, payload: string | null = null) {
  const token = randomToken();
  await db
    .insertInto('user_tokens')
    .values({ token_hash: hashToken(token), user_id: userId, kind, payload, created_at: now, expires_at: now + ttlMs, used_at: null })
    .execute();
  return token;
}

/** Marks a live token of this kind used and returns it; undefined for unknown, used, expired or wrong-kind tokens. */
export async function consumeUserToken(db: Q, token: string, kind: TokenKind, now: number) {
  const row = await db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'payload'])
    .executeTakeFirst();
  return row;
}

export async function countTokensSince(db: Q, userId: number, kind: TokenKind, since: number): Promise<number> {
  const row = await db
    .selectFrom('user_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
