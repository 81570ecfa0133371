import { atom } from 'nanostores';
import type { LikesResponse } from '../../shared/chat.contract';
import type { ProfileCard } from '../../shared/profiles.contract';
import { api, call } from '../api/client';
import { setTotals } from '../chat/totals.store';

/** Given likes, received likes (new first) and matches (SPEC §3 "likes", "liked_by"). */
export const $likes = atom<LikesResponse>({ likes: [], liked_by: [], matches: [], new_likes: 0 });
/** 'loading' only before the first answer (SPEC §7: progress indicator on first load only). */
export const $likesStatus = atom<'idle' | 'loading' | 'ready' | 'error'>('idle');

function applyLikes(answer: LikesResponse) {
  $likes.set(answer);
  $likesStatus.set('ready');
  setTotals({ new_likes: answer.new_likes });
}

/** The page's server-rendered likes. */
export function setInitialLikes(answer: LikesResponse) {
  if ($likesStatus.get() === 'ready') return;
  applyLikes(answer);
}

let inFlight: Promise<void> | null = null;
/** GET /api/likes.php; concurrent callers share one request. */
export function loadLikes(): Promise<void> {
  if (inFlight) return inFlight;
  if ($likesStatus.get() !== 'ready') $likesStatus.set('loading');
  inFlight = call(() => api.get('likes.php').json<LikesResponse>())
    .then(applyLikes)
    .catch(() => { if ($likesStatus.get() !== 'ready') $likesStatus.set('error'); })
    .finally(() => { inFlight = null; });
  return inFlight;
}

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
  $likesStatus.set('idle');
  inFlight = null;
}
