import { SWIPES_PER_DAY_FREE, SWIPES_PER_DAY_PREMIUM } from '../../shared/constants';
import type { ProfileCard, SwipeDeck } from '../../shared/profiles.contract';
import type { Site } from '../../shared/site.schema';
import { lookingFor } from '../../shared/profile-options';
import type { MemberExtras } from '../accounts/session-cache';
import type { AppContext } from '../app-context';
import type { User } from '../db/schema';
import { lockMember } from '../db/locks';
import { announceLike, insertLike, prepareLike, ProfileRuleError, profileIdOf, searchProfiles } from './profiles.service';

const DAY = 86_400_000;
const DECK_SIZE = 10;

async function swipedToday(app: AppContext, profileId: number, day: number) {
  const rows = await app.db.db.selectFrom('swipes').select('target_profile_id').where('swiper_profile_id', '=', profileId).where('day', '=', day).execute();
  return new Set(rows.map((r) => r.target_profile_id));
}

function allowance(user: User) {
  return user.paid_user ? SWIPES_PER_DAY_PREMIUM : SWIPES_PER_DAY_FREE;
}

/** The next cards (`own`: the member's profile as the session read it): visible profiles of the gender the member looks for, none shown twice a day, none already liked. */
export async function swipeDeck(app: AppContext, site: Site, user: User, own: MemberExtras['profile']): Promise<SwipeDeck> {
  const db = app.db.db;
  if (!own) throw new ProfileRuleError('no_profile', 'error.invalid_input', 400);
  const day = Math.floor(app.clock.now() / DAY);
  const seen = await swipedToday(app, own.id, day);
  const remaining = Math.max(0, allowance(user) - seen.size);
  if (remaining === 0) return { cards: [], remaining };
  const liked = new Set((await db.selectFrom('likes').select('liked_profile_id').where('liker_profile_id', '=', own.id).execute()).map((r) => r.liked_profile_id));
  const gender = lookingFor(own.gender, own.sexuality);
  const cards: ProfileCard[] = [];
  for (let page = 1; cards.length < Math.min(DECK_SIZE, remaining) && page <= 20; page++) {
    const { results } = await searchProfiles(app, site, user, { gender, page });
    if (results.length === 0) break;
    for (const card of results) if (!seen.has(card.id) && !liked.has(card.id) && cards.length < Math.min(DECK_SIZE, remaining)) cards.push(card);
  }
  return { cards, remaining };
}

/**
 * Records a swipe; right is a like (with the like rules and limits), left a pass. The day's count,
 * the like and the swipe are written in one transaction under the member's lock, so parallel
 * swipes cannot pass the allowance and a like the rules refuse records nothing.
 */
export async function swipe(app: AppContext, site: Site, user: User, targetId: number, decision: 'like' | 'pass') {
  const db = app.db.db;
  const own = await profileIdOf(db, user);
  if (own === null) throw new ProfileRuleError('no_profile', 'error.invalid_input', 400);
  const now = app.clock.now();
  const day = Math.floor(now / DAY);
  const target = await db.selectFrom('profiles').select('id').where('id', '=', targetId).where('site_id', '=', site.id).where('status', '=', 'active').executeTakeFirst();
  if (!target || targetId === own) throw new ProfileRuleError('not_found', 'error.not_found', 404);
  const like = decision === 'like' ? await prepareLike(app, site, user, targetId) : null;
  const { liked, used } = await db.transaction().execute(async (trx) => {
    await lockMember(trx, app.db.dialect, user.id);
    const seen = await trx.selectFrom('swipes').select('target_profile_id').where('swiper_profile_id', '=', own).where('day', '=', day).execute();
    if (seen.some((r) => r.target_profile_id === targetId)) throw new ProfileRuleError('already_swiped', 'swipe.already', 409);
    if (seen.length >= allowance(user)) throw new ProfileRuleError('swipe_limit', 'swipe.done', 429);
    const liked = like ? await insertLike(trx, user, like, 'swipe', now) : null;
    await trx.insertInto('swipes').values({ swiper_profile_id: own, target_profile_id: targetId, day, decision, created_at: now }).execute();
    return { liked, used: seen.length + 1 };
  });
  if (like && liked) await announceLike(app, like, liked.result.match, liked.events);
  return { match: liked?.result.match ?? false, remaining: Math.max(0, allowance(user) - used) };
}
