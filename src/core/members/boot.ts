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
import { setInitialUser } from '../session/store';
import { renderAppBadge, renderBadge, renderTitle } from './shell';
import type { MemberShellData } from './shell-data';

const dataTag = document.getElementById('member-shell-data');
if (dataTag?.textContent) {
  const data = JSON.parse(dataTag.textContent) as MemberShellData;
  setInitialUser(data.user);

  $unreadTotal.subscribe((count) => renderBadge(document.querySelector('[data-nav="chats"]'), 'unread', count, data.labels.unread));
  $newLikesTotal.subscribe((count) => renderBadge(document.querySelector('[data-nav="likes"]'), 'likes', count, data.labels.likes));
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
