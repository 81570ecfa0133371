import type { Expression, ExpressionBuilder, InferResult, Kysely, Transaction } from 'kysely';
import { hotQuery } from '../db/database';
import type { Database, TokenKind, User } from '../db/schema';
import { hashToken, randomToken } from './tokens';
import type { MemberExtras, SessionMember } from './session-cache';
import { rememberOwnProfile } from '../profiles/own-profile';
import { newLikesQuery, unreadQuery } from '../chat/chat.repository';

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

export type { MemberExtras };

/**
 * The user behind a session token with profile, main photo and badge totals, in one query (every API
 * call and page view runs it).
 * A session belongs to the site it was made on: on another site's host it is no session at all.
 */
export async function findSessionMember(db: Q, tokenHash: string, siteId: string, now: number): Promise<SessionMember | undefined> {
  const row = await sessionMember(db as Kysely<Database>, tokenHash, siteId, now);
  if (!row) return undefined;
  const { s_expires, p_id, p_name, p_status, p_invisible, p_gender, p_sexuality, ph_filename, ph_thumb, ph_status, b_unread, b_likes } = row;
  // The user's columns, copied in the row's order: the same object as `{ s_expires, …, ...user } = row`
  // made, at a fraction of the cost (the rest copy of 30 properties was a third of a lookup).
  let copy = userCopierOf.get(db);
  if (!copy) {
    copy = userCopier(Object.keys(row).filter((key) => !EXTRA_KEYS.has(key)));
    userCopierOf.set(db, copy);
  }
  // Frozen: the same objects may serve several requests from the session cache.
  const user = Object.freeze(copy(row)) as unknown as User;
  if (p_id !== null) rememberOwnProfile(user, p_id);
  return {
    sessionExpiresAt: Number(s_expires),
    user,
    extras: {
      profile: p_id === null ? null : {
        id: p_id, name: p_name as string, status: p_status as 'active', invisible: p_invisible as number,
        gender: p_gender as NonNullable<typeof p_gender>, sexuality: p_sexuality as NonNullable<typeof p_sexuality>,
      },
      photo: ph_filename === null ? null : { filename: ph_filename, thumb_filename: ph_thumb as string, status: ph_status as string },
    },
    ...(p_id === null ? {} : { badges: { unread_messages: Number(b_unread ?? 0), new_likes: Number(b_likes ?? 0) } }),
  };
}

/** The columns of a session row that are not the user's (see the query below). */
const EXTRA_KEYS = new Set(['s_expires', 'p_id', 'p_name', 'p_status', 'p_invisible', 'p_gender', 'p_sexuality', 'ph_filename', 'ph_thumb', 'ph_status', 'b_unread', 'b_likes']);
/** Per database: the copier of the user's columns of a session row (the schema is migrated before the first query). */
const userCopierOf = new WeakMap<object, (row: object) => object>();
/**
 * `row => ({ id: row.id, site_id: row.site_id, … })` for these column names (the database's own, quoted
 * as JSON): an object literal with constant names, so the copy is a plain fast object. Copied with a
 * loop of computed names, V8 turned each user object into a dictionary (1.4 KB more per cached session).
 */
function userCopier(keys: string[]): (row: object) => object {
  const fields = keys.map((key) => `${JSON.stringify(key)}: row[${JSON.stringify(key)}]`).join(', ');
  return new Function('row', `return { ${fields} };`) as (row: object) => object;
}

type SessionMemberRow = InferResult<ReturnType<typeof sessionMemberQuery>>[number];
const sessionMember = hotQuery<[string, string, number], SessionMemberRow>(sessionMemberQuery, ['\u0000token', '\u0000site', -424242]);

function sessionMemberQuery(db: Q, tokenHash: string, siteId: string, now: number) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .leftJoin('profiles', 'profiles.user_id', 'users.id')
    .leftJoin('photos', (join) => join.onRef('photos.profile_id', '=', 'profiles.id').on('photos.is_main', '=', 1))
    .selectAll('users')
    .select([
      'sessions.expires_at as s_expires', 'profiles.id as p_id', 'profiles.name as p_name', 'profiles.status as p_status', 'profiles.invisible as p_invisible',
      'profiles.gender as p_gender', 'profiles.sexuality as p_sexuality',
      'photos.filename as ph_filename', 'photos.thumb_filename as ph_thumb', 'photos.status as ph_status',
    ])
    // The badges every page and GET /api/user.php show, here rather than in a round trip of their own.
    .select((eb) => {
      const profile = eb.ref('profiles.id') as unknown as Expression<number>;
      return [unreadQuery(db, profile).as('b_unread'), newLikesQuery(db, profile).as('b_likes')];
    })
    .where('sessions.token_hash', '=', tokenHash)
    .where('users.site_id', '=', siteId)
    .where('sessions.expires_at', '>', now)
    .where('users.deleted_at', 'is', null);
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

/** A mailed token that still works: this kind, unused, unexpired, of a member of this site (another site's is unknown here). */
function liveToken(eb: ExpressionBuilder<Database, 'user_tokens'>, token: string, kind: TokenKind, siteId: string, now: number) {
  return eb.and([
    eb('token_hash', '=', hashToken(token)),
    eb('kind', '=', kind),
    eb('user_id', 'in', eb.selectFrom('users').select('id').where('site_id', '=', siteId)),
    eb('used_at', 'is', null),
    eb('expires_at', '>', now),
  ]);
}

/** Marks a live token of this kind used and returns it; undefined for unknown, used, expired or wrong-kind tokens. */
export async function consumeUserToken(db: Q, token: string, kind: TokenKind, siteId: string, now: number) {
  return db
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where((eb) => liveToken(eb, token, kind, siteId, now))
    .returning(['user_id', 'payload'])
    .executeTakeFirst();
}

/** Whether a mailed token would still work, without using it (a page shows its form only then). */
export async function isUserTokenLive(db: Q, token: string, kind: TokenKind, siteId: string, now: number): Promise<boolean> {
  const row = await db.selectFrom('user_tokens').select('user_id').where((eb) => liveToken(eb, token, kind, siteId, now)).executeTakeFirst();
  return row !== undefined;
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
