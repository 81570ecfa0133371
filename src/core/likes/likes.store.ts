import { atom } from 'nanostores';
import type { LikesResponse } from '../../shared/chat.contract';
import type { ProfileCard } from '../../shared/profiles.contract';
import { createRefreshedList } from '../api/refreshed-list';
import { setTotals } from '../chat/totals.store';

/** Given likes, received likes (new first) and matches (SPEC §3 "likes", "liked_by"). */
export const $likes = atom<LikesResponse>({ likes: [], liked_by: [], matches: [], new_likes: 0 });
const likesList = createRefreshedList<LikesResponse>('likes.php', (answer) => {
  $likes.set(answer);
  setTotals({ new_likes: answer.new_likes });
});
/** 'loading' only before the first answer (SPEC §7: progress indicator on first load only). */
export const $likesStatus = likesList.$status;
/** The page's server-rendered likes. */
export const setInitialLikes = likesList.setInitial;
/** GET /api/likes.php; concurrent callers share one request. */
export const loadLikes = likesList.load;

/** A like arrived over the realtime connection: first in the received list, marked new. */
export function receiveLike(profile: ProfileCard, newLikes: number, match: boolean) {
  const current = $likes.get();
  const liked_by = [{ ...profile, like_new: true, liked_at: Date.now() }, ...current.liked_by.filter((p) => p.id !== profile.id)];
  const matches = match && !current.matches.some((p) => p.id === profile.id) ? [profile, ...current.matches] : current.matches;
  $likes.set({ ...current, liked_by, matches, new_likes: newLikes });
  setTotals({ new_likes: newLikes });
}

/** Test helper: forget everything. */
export function resetLikes() {
  $likes.set({ likes: [], liked_by: [], matches: [], new_likes: 0 });
  likesList.reset();
}
