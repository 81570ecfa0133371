import { atom } from 'nanostores';
import { REFRESH_FIRST_MS, REFRESH_MS, REFRESH_PUSH_MS } from '../../shared/chat.contract';
import { loadLikes } from '../likes/likes.store';
import { refreshUser } from '../session/store';
import { loadChats } from './chats.store';

/** Whether push notifications are subscribed (the members boot mirrors src/core/push here). */
export const $pushSubscribed = atom(false);

/** The refresh period: 60 s, or 300 s when push messages bring news (SPEC §4, §9). */
export const refreshInterval = (pushSubscribed: boolean) => (pushSubscribed ? REFRESH_PUSH_MS : REFRESH_MS);

/** User, chats and likes at once; one failing does not stop the others. */
export async function refreshAll(): Promise<void> {
  await Promise.allSettled([refreshUser(), loadChats(), loadLikes()]);
}

/**
 * The fallback refresh beside the realtime connection: first 5 s after start, then every 60 s
 * (300 s with push). Returns a function that stops it.
 */
export function startRefresh(): () => void {
  let timer: ReturnType<typeof setTimeout>;
  const tick = async () => {
    await refreshAll();
    timer = setTimeout(tick, refreshInterval($pushSubscribed.get()));
  };
  timer = setTimeout(tick, REFRESH_FIRST_MS);
  const unbind = $pushSubscribed.listen(() => {
    clearTimeout(timer);
    timer = setTimeout(tick, refreshInterval($pushSubscribed.get()));
  });
  return () => {
    clearTimeout(timer);
    unbind();
  };
}
