import type { InferResult, Kysely } from 'kysely';
import type { AutoLikeResponse, LikedByProfile, LikesResponse } from '../../shared/chat.contract';
import type { ProfileCard } from '../../shared/profiles.contract';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import { jsonArrayFrom, jsonRows, preparedQuery } from '../db/database';
import type { Database, User } from '../db/schema';
import { cardsByIds, requireOwnProfile } from '../profiles/profiles.service';

const LIST_LIMIT = 300;

/** Likes rows of this member towards (or from) active profiles of the site, with blocks removed both ways. */
function likesQuery(db: Kysely<Database>, siteId: string, own: number, direction: 'given' | 'received') {
  const [self, other] = direction === 'given' ? (['liker_profile_id', 'liked_profile_id'] as const) : (['liked_profile_id', 'liker_profile_id'] as const);
  return db
    .selectFrom('likes')
    .innerJoin('profiles as p', 'p.id', `likes.${other}`)
    .select([`likes.${other} as profile_id`, 'likes.is_new', 'likes.created_at', 'likes.shown_at'])
    .where(`likes.${self}`, '=', own)
    .where('p.site_id', '=', siteId)
    .where('p.status', '=', 'active')
    .where((eb) => eb.not(eb.exists(
      eb.selectFrom('blocks').select('blocks.created_at').where((b) => b.or([
        b.and([b('blocks.blocker_profile_id', '=', own), b('blocks.blocked_profile_id', '=', b.ref(`likes.${other}`))]),
        b.and([b('blocks.blocked_profile_id', '=', own), b('blocks.blocker_profile_id', '=', b.ref(`likes.${other}`))]),
      ])),
    )));
}

/** A row of `likesQuery`: the other member's profile and the like's state. */
type LikeRow = InferResult<ReturnType<typeof likesQuery>>[number];

/** Both lists in one statement (each a JSON array in its order), compiled once. */
const bothLists = preparedQuery((db, own: number, siteId: string) => db.selectNoFrom([
  jsonArrayFrom(db, likesQuery(db, siteId, own, 'given').orderBy('likes.created_at', 'desc').limit(LIST_LIMIT) as never).as('given'),
  jsonArrayFrom(db, likesQuery(db, siteId, own, 'received').orderBy('likes.is_new', 'desc').orderBy('likes.created_at', 'desc').limit(LIST_LIMIT) as never).as('received'),
]), [-424242, '\u0000site']);

/** GET likes: given likes, received likes (new first, then newest), and matches (liked both ways). */
export async function listLikes(app: AppContext, site: Site, user: User): Promise<LikesResponse> {
  const db = app.db.db;
  const own = await requireOwnProfile(db, user);
  const now = app.clock.now();
  const [lists] = (await bothLists(db, own, site.id)).rows;
  const given = jsonRows<LikeRow>(lists?.given);
  const received = jsonRows<LikeRow>(lists?.received);
  const cards = new Map((await cardsByIds(db, [...new Set([...given, ...received].map((r) => r.profile_id))], now)).map((c) => [c.id, c]));
  const card = (id: number) => cards.get(id) as ProfileCard;
  const givenIds = new Set(given.map((r) => r.profile_id));
  const liked_by: LikedByProfile[] = received.filter((r) => cards.has(r.profile_id)).map((r) => ({ ...card(r.profile_id), like_new: r.is_new === 1, liked_at: r.created_at }));
  return {
    likes: given.filter((r) => cards.has(r.profile_id)).map((r) => card(r.profile_id)),
    liked_by,
    matches: received.filter((r) => givenIds.has(r.profile_id) && cards.has(r.profile_id)).map((r) => card(r.profile_id)),
    new_likes: liked_by.filter((p) => p.like_new).length,
  };
}

/**
 * The auto-like call: a real received like the member has not been shown yet (newest first), marked
 * shown so it appears once; null when there is none. Nothing is ever created here.
 */
export async function nextPendingLike(app: AppContext, site: Site, user: User): Promise<AutoLikeResponse> {
  const own = await requireOwnProfile(app.db.db, user);
  const now = app.clock.now();
  const pending = await likesQuery(app.db.db, site.id, own, 'received').where('likes.shown_at', 'is', null).orderBy('likes.created_at', 'desc').limit(1).executeTakeFirst();
  if (!pending) return { profile: null, match: false };
  const claimed = await app.db.db
    .updateTable('likes')
    .set({ shown_at: now })
    .where('liker_profile_id', '=', pending.profile_id)
    .where('liked_profile_id', '=', own)
    .where('shown_at', 'is', null)
    .executeTakeFirst();
  // Another tab took it first.
  if (Number(claimed.numUpdatedRows) === 0) return { profile: null, match: false };
  const [profile] = await cardsByIds(app.db.db, [pending.profile_id], now);
  const back = await app.db.db.selectFrom('likes').select('created_at').where('liker_profile_id', '=', own).where('liked_profile_id', '=', pending.profile_id).executeTakeFirst();
  return { profile: profile ?? null, match: Boolean(back) };
}
