import { atom } from 'nanostores';
import { AUTO_LIKE_RELOAD_MS, type AutoLikeResponse } from '../../shared/chat.contract';
import type { ProfileCard } from '../../shared/profiles.contract';
import { api, call } from '../api/client';
import { loadLikes } from './likes.store';

/** The like or match modal on screen (SPEC §2 "like modal", match modal), or null. */
export type LikeModal = { kind: 'match' | 'like'; profile: ProfileCard } | null;
export const $likeModal = atom<LikeModal>(null);

/** Shows "It's a match!" for this profile (a like came back, or the partner liked back). */
export function showMatch(profile: ProfileCard) {
  $likeModal.set({ kind: 'match', profile });
}
/** Shows "New like!" for this profile. */
export function showNewLike(profile: ProfileCard) {
  $likeModal.set({ kind: 'like', profile });
}
export function closeLikeModal() {
  $likeModal.set(null);
}

interface MemberAnswer {
  profile: Omit<ProfileCard, 'thumb'> & { photos: { thumb_filename: string }[] };
}

/** A like came back as a match: fetches the profile's card and opens the match modal. */
export async function announceMatch(profileId: number): Promise<void> {
  try {
    const { profile } = await call(() => api.get('member.php', { searchParams: { id: profileId } }).json<MemberAnswer>());
    showMatch({
      id: profile.id, name: profile.name, age: profile.age, city: profile.city, region: profile.region, country: profile.country,
      fictional: profile.fictional, thumb: profile.photos[0]?.thumb_filename ?? null,
    });
  } catch {
    // The like itself worked; the profile screen tells about the match in its own words.
  }
  void loadLikes();
}

/**
 * The like modal for query parameter t (SPEC §2): asks auto-like for a real pending like, shows it
 * (or the match modal when it is mutual) and reloads likes AUTO_LIKE_RELOAD_MS later.
 */
export async function runAutoLike(): Promise<AutoLikeResponse | null> {
  try {
    const answer = await call(() => api.get('auto-like.php').json<AutoLikeResponse>());
    if (answer.profile) (answer.match ? showMatch : showNewLike)(answer.profile);
    return answer;
  } catch {
    return null;
  } finally {
    setTimeout(() => void loadLikes(), AUTO_LIKE_RELOAD_MS);
  }
}

/**
 * Reads ?t=<seconds> from the address: after that delay runs auto-like, then removes the parameter
 * from the address without a reload. Returns a cancel function.
 */
export function scheduleAutoLikeFromUrl(loc: Pick<Location, 'href'> = location, hist: Pick<History, 'replaceState' | 'state'> = history): () => void {
  const url = new URL(loc.href);
  const raw = url.searchParams.get('t');
  if (raw === null) return () => undefined;
  const seconds = Number(raw);
  const delay = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : 0;
  const timer = setTimeout(async () => {
    await runAutoLike();
    const now = new URL(loc.href);
    now.searchParams.delete('t');
    hist.replaceState(hist.state, '', `${now.pathname}${now.search}${now.hash}`);
  }, delay);
  return () => clearTimeout(timer);
}
