import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $likeModal, closeLikeModal, runAutoLike, scheduleAutoLikeFromUrl } from '../../src/core/likes/like-modal.store';
import { resetLikes } from '../../src/core/likes/likes.store';
import { likeProfile } from '../../src/core/profiles/actions';
import { $user } from '../../src/core/session/store';
import { AUTO_LIKE_RELOAD_MS } from '../../src/shared/chat.contract';
import { card, user } from '../helpers/chat-fixtures';
import { fakeAddressBar, fakeApi } from '../helpers/fake-api';

const LIKES = { likes: [], liked_by: [], matches: [], new_likes: 0 };
let api: ReturnType<typeof fakeApi>;
beforeEach(() => {
  resetLikes();
  closeLikeModal();
  api = fakeApi();
  $user.set(user());
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  expect(api.unexpected).toEqual([]);
  expect(api.pending()).toEqual([]);
  vi.unstubAllGlobals();
});

describe('like and match modals', () => {
  it('shows the match modal for a mutual pending like and reloads likes 500 ms later', async () => {
    api.expectRequest('/api/auto-like.php').andRespond(200, { profile: card(7, 'Ann'), match: true });
    await runAutoLike();
    expect($likeModal.get()).toEqual({ kind: 'match', profile: card(7, 'Ann') });
    api.expectRequest('/api/likes.php').andRespond(200, LIKES);
    await vi.advanceTimersByTimeAsync(AUTO_LIKE_RELOAD_MS);
    expect(api.requests).toEqual(['GET /api/auto-like.php', 'GET /api/likes.php']);
  });

  it('waits t seconds, shows "New like!" and removes t from the address', async () => {
    const bar = fakeAddressBar('/members?gender=female&t=3');
    scheduleAutoLikeFromUrl(bar.location, bar.history);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(api.requests).toEqual([]);
    api.expectRequest('/api/auto-like.php').andRespond(200, { profile: card(8, 'Bo'), match: false });
    await vi.advanceTimersByTimeAsync(100);
    expect($likeModal.get()).toEqual({ kind: 'like', profile: card(8, 'Bo') });
    expect(bar.location.search).toBe('?gender=female');
    api.expectRequest('/api/likes.php').andRespond(200, LIKES);
    await vi.advanceTimersByTimeAsync(AUTO_LIKE_RELOAD_MS);
  });

  it('shows nothing when there is no pending like', async () => {
    api.expectRequest('/api/auto-like.php').andRespond(200, { profile: null, match: false });
    api.expectRequest('/api/likes.php').andRespond(200, LIKES);
    await runAutoLike();
    await vi.advanceTimersByTimeAsync(AUTO_LIKE_RELOAD_MS);
    expect($likeModal.get()).toBeNull();
  });

  it('opens the match modal when a like from the profile buttons comes back as a match', async () => {
    api.expectRequest('/api/like.php', 'POST').andRespond(200, { match: true, remaining: 3 });
    api.expectRequest('/api/member.php?id=9').andRespond(200, {
      profile: { ...card(9, 'Cy'), photos: [{ thumb_filename: 'p/9-thumb.webp' }] },
    });
    api.expectRequest('/api/likes.php').andRespond(200, LIKES);
    expect(await likeProfile(9)).toEqual({ match: true, remaining: 3 });
    await vi.waitFor(() => expect($likeModal.get()).toEqual({ kind: 'match', profile: { ...card(9, 'Cy'), thumb: 'p/9-thumb.webp' } }));
  });
});
