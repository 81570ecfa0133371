import { computed } from 'nanostores';
import type { SessionUser } from '../../shared/user.contract';
import { $user } from '../session/store';

/** Unread messages over all chats (nav badge, title, app badge). */
export const $unreadTotal = computed($user, (user) => user?.unread_messages ?? 0);
/** Received likes not looked at yet. */
export const $newLikesTotal = computed($user, (user) => user?.new_likes ?? 0);
/** What the title and the installed-app badge count: unread messages plus new likes (SPEC §2). */
export const $attentionTotal = computed([$unreadTotal, $newLikesTotal], (unread, likes) => unread + likes);

type Totals = Partial<Pick<SessionUser, 'unread_messages' | 'new_likes' | 'credits' | 'paid_user'>>;

/** Puts fresher totals from an answer or an event on the member (the one place they live). */
export function setTotals(totals: Totals) {
  const user = $user.get();
  if (!user) return;
  const changed = (Object.keys(totals) as (keyof Totals)[]).some((k) => totals[k] !== undefined && totals[k] !== user[k]);
  if (!changed) return;
  const next = { ...user };
  for (const [k, value] of Object.entries(totals) as [keyof Totals, never][]) if (value !== undefined) next[k] = value;
  $user.set(next);
}
