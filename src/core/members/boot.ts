// The members' live shell, loaded from the Default layout on every page when logged in:
// realtime events, the fallback refresh, badges, title, app badge and the like/match modals.

import { loadChats } from '../chat/chats.store';
import { readOpenConversationIfUnread } from '../chat/conversation.store';
import { $realtimeOpen, connectRealtime } from '../chat/realtime';
import { $pushSubscribed, startRefresh } from '../chat/refresh';
import { $attentionTotal, $newLikesTotal, $unreadTotal } from '../chat/totals.store';
import { $likeModal, scheduleAutoLikeFromUrl } from '../likes/like-modal.store';
import { loadLikes } from '../likes/likes.store';
import { $push, onPushMessage } from '../push/push.store';
import { $user, setInitialUser } from '../session/store';
import {
  $timeBonus, $timeBonusCountdown, cancelTimeBonusPopup, formatCountdown, loadTimeBonus, noteTyping, scheduleTimeBonusPopup, startTimeBonus,
} from '../time-bonus/time-bonus.store';
import { renderAppBadge, renderBadge, renderCreditsNav, renderTitle } from './shell';
import type { MemberShellData } from './shell-data';
import { TIME_BONUS_SECONDS } from '../../shared/constants';

const dataTag = document.getElementById('member-shell-data');
if (dataTag?.textContent) {
  const data = JSON.parse(dataTag.textContent) as MemberShellData;
  setInitialUser(data.user);

  $unreadTotal.subscribe((count) => renderBadge(document.querySelector('[data-nav="chats"]'), 'unread', count, data.labels.unread, data.locale));
  $newLikesTotal.subscribe((count) => renderBadge(document.querySelector('[data-nav="likes"]'), 'likes', count, data.labels.likes, data.locale));
  // Credits badge and Get Premium follow the balance live (a payment in another tab, a message sent here).
  $user.subscribe((user) => {
    if (!user) return;
    renderCreditsNav(document.querySelector<HTMLElement>('[data-nav="credits"]'), document.querySelector<HTMLElement>('[data-nav="premium"]'), user,
      { low: data.labels.lowCredits, none: data.labels.noCredits }, data.locale);
  });
  $attentionTotal.subscribe((count) => {
    renderTitle(document, count);
    renderAppBadge(navigator, count);
  });

  connectRealtime();
  // Push (src/core/push, started by the shell boot): refresh less often while subscribed; reload on every push.
  $push.subscribe((push) => $pushSubscribed.set(push.isSubscribed));
  onPushMessage(() => {
    void loadChats();
    void loadLikes();
  });
  // Tests and support tools can see whether the live connection is up.
  $realtimeOpen.subscribe((open) => { document.documentElement.dataset.realtime = open ? 'open' : 'closed'; });
  startRefresh();
  scheduleAutoLikeFromUrl();
  document.addEventListener('visibilitychange', readOpenConversationIfUnread);

  // Time bonus (SPEC §4): loaded on login (the first members page). Its banner comes with the page
  // (timeBonusBanner in src/server/pages/layout-parts.ts): here it ticks, and goes when the bonus ends. The 40 s popup
  // belongs to the members area only, and waits while the member types.
  if (data.timeBonus) startTimeBonus(data.timeBonus);
  else if (!data.user.paid_user && Date.now() - Date.parse(data.user.signup_date) < TIME_BONUS_SECONDS * 1000) void loadTimeBonus().catch(() => undefined);
  const banner = document.querySelector<HTMLElement>('[data-time-bonus]');
  if (banner) {
    const countdown = banner.querySelector('[data-tb-countdown]');
    const stopCountdown = $timeBonusCountdown.subscribe((time) => {
      if ($timeBonus.get() && countdown) countdown.textContent = formatCountdown(time);
    });
    const stopBanner = $timeBonus.subscribe((bonus) => {
      if (bonus) return;
      banner.remove();
      queueMicrotask(() => {
        stopCountdown();
        stopBanner();
      });
    });
  }
  document.addEventListener('keydown', () => noteTyping(), { capture: true, passive: true });
  if (document.body.dataset.membersArea === 'true') {
    let timeBonusMounted = false;
    $timeBonus.subscribe((bonus) => {
      if (!bonus || timeBonusMounted) return;
      timeBonusMounted = true;
      scheduleTimeBonusPopup();
      void import('../../islands/time-bonus/mount').then(({ mountTimeBonus }) => {
        const modal = document.createElement('div');
        (document.getElementById('modal-root') ?? document.body).append(modal);
        mountTimeBonus(modal, { locale: data.locale });
      });
    });
    window.addEventListener('pagehide', cancelTimeBonusPopup);
  }

  // The modals' code loads the first time one has something to show.
  let mounted = false;
  $likeModal.subscribe((modal) => {
    if (!modal || mounted) return;
    mounted = true;
    void import('../../islands/likes/mount').then(({ mountLikeModals }) => {
      const root = document.createElement('div');
      (document.getElementById('modal-root') ?? document.body).append(root);
      mountLikeModals(root, data);
    });
  });
}
