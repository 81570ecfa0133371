import { SWIPES_PER_DAY_FREE, SWIPES_PER_DAY_PREMIUM } from '../../shared/constants';
import type { ProfileCard, SwipeDeck } from '../../shared/profiles.contract';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import type { User } from '../db/schema';
import { likeProfile, ProfileRuleError, profileIdOf, searchProfiles } from './profiles.service';

const DAY = 86_400_000;
const DECK_SIZE = 10;

async function swipedToday(app: AppContext, profileId: number, day: number) {
  const rows = await app.db.db.selectFrom('swipes').select('target_profile_id').where('swiper_profile_id', '=', profileId).where('day', '=', day).execute();
  return new Set(rows.map((r) => r.target_profile_id));
}

function allowance(user: User) {
  return user.paid_user ? SWIPES_PER_DAY_PREMIUM : SWIPES_PER_DAY_FREE;
}

/** The next cards: visible profiles of the gender the member looks for, none shown twice a day, none already liked. */
export async function swipeDeck(app: AppContext, site: Site, user: User): Promise<SwipeDeck> {
  const db = app.db.db;
  const own = await db.selectFrom('profiles').select(['id', 'gender', 'sexuality']).where('user_id', '=', user.id).executeTakeFirst();
  if (!own) throw new ProfileRuleError('no_profile', 'error.invalid_input', 400);
  const day = Math.floor(app.clock.now() / DAY);
  const seen = await swipedToday(app, own.id, day);
  const remaining = Math.max(0, allowance(user) - seen.size);
  if (remaining === 0) return { cards: [], remaining };
  const liked = new Set((await db.selectFrom('likes').select('liked_profile_id').where('liker_profile_id', '=', own.id).execute()).map((r) => r.liked_profile_id));
  const gender = own.sexuality === 'bi' ? undefined : own.sexuality === 'hetero' ? (own.gender === 'male' ? 'female' : 'male') : own.gender;
  const cards: ProfileCard[] = [];
  for (let page = 1; cards.length < Math.min(DECK_SIZE, remaining) && page <= 20; page++) {
    const { results } = await searchProfiles(app, site, user, { gender, page });
    if (results.length === 0) break;
    for (const card of results) if (!seen.has(card.id) && !liked.has(card.id) && cards.length < Math.min(DECK_SIZE, remaining)) cards.push(card);
  }
  return { cards, remaining };
}

/** Records a swipe; right is a like (with the like rules and limits), left a pass. */
export async function swipe(app: AppContext, site: Site, user: User, targetId: number, decision: 'like' | 'pass') {
  const db = app.db.db;
  const own = await profileIdOf(db, user);
  if (own === null) throw new ProfileRuleError('no_profile', 'error.invalid_input', 400);
  const now = app.clock.now();
  const day = Math.floor(now / DAY);
  const seen = await swipedToday(app, own, day);
  if (seen.has(targetId)) throw new ProfileRuleError('already_swiped', 'swipe.already', 409);
  if (seen.size >= allowance(user)) throw new ProfileRuleError('swipe_limit', 'swipe.done', 429);
  const target = await db.selectFrom('profiles').select('id').where('id', '=', targetId).where('site_id', '=', site.id).where('status', '=', 'active').executeTakeFirst();
  if (!target || targetId === own) throw new ProfileRuleError('not_found', 'error.not_found', 404);
  // A like that the rules refuse (daily likes used up, blocked, invisible) records nothing.
  const like = decision === 'like' ? await likeProfile(app, site, user, targetId, 'swipe') : null;
  await db.insertInto('swipes').values({ swiper_profile_id: own, target_profile_id: targetId, day, decision, created_at: now }).execute();
  return { match: like?.match ?? false, remaining: Math.max(0, allowance(user) - seen.size - 1) };
}
