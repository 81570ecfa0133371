import { atom } from 'nanostores';
import type { Gift, GiftsResponse } from '../../shared/chat.contract';
import { api, call } from '../api/client';

/** The gift catalogue with this site's prices; loaded once, when the picker first opens. */
export const $gifts = atom<Gift[] | null>(null);
export const $giftsError = atom(false);

let inFlight: Promise<void> | null = null;
export function loadGifts(): Promise<void> {
  if ($gifts.get()) return Promise.resolve();
  if (inFlight) return inFlight;
  $giftsError.set(false);
  inFlight = call(() => api.get('gifts.php').json<GiftsResponse>())
    .then((answer) => $gifts.set(answer.gifts))
    .catch(() => $giftsError.set(true))
    .finally(() => { inFlight = null; });
  return inFlight;
}

/** Test helper. */
export function resetGifts() {
  $gifts.set(null);
  $giftsError.set(false);
  inFlight = null;
}
