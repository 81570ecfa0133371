import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetChats } from '../../src/core/chat/chats.store';
import { $pushSubscribed, refreshInterval, startRefresh } from '../../src/core/chat/refresh';
import { resetLikes } from '../../src/core/likes/likes.store';
import { $user } from '../../src/core/session/store';
import { user } from '../helpers/chat-fixtures';
import { fakeApi } from '../helpers/fake-api';

let api: ReturnType<typeof fakeApi>;
const expectRound = () => {
  api.expectRequest('/api/user.php').andRespond(200, { user: user({ unread_messages: 2 }) });
  api.expectRequest('/api/chats.php').andRespond(200, { chats: [], unread_messages: 2 });
  api.expectRequest('/api/likes.php').andRespond(200, { likes: [], liked_by: [], matches: [], new_likes: 0 });
};
beforeEach(() => {
  resetChats();
  resetLikes();
  $pushSubscribed.set(false);
  api = fakeApi();
  $user.set(user());
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  expect(api.unexpected).toEqual([]);
  vi.unstubAllGlobals();
});

describe('refresh', () => {
  it('refreshes user, chats and likes 5 s after start, then every 60 s', async () => {
    const stop = startRefresh();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(api.requests).toEqual([]);
    expectRound();
    await vi.advanceTimersByTimeAsync(1);
    expect(api.requests.sort()).toEqual(['GET /api/chats.php', 'GET /api/likes.php', 'GET /api/user.php']);
    expect($user.get()?.unread_messages).toBe(2);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(api.requests).toHaveLength(3);
    expectRound();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(api.requests).toHaveLength(6);
    stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(api.requests).toHaveLength(6);
  });

  it('waits 300 s between refreshes while push is subscribed', () => {
    expect(refreshInterval(false)).toBe(60_000);
    expect(refreshInterval(true)).toBe(300_000);
  });
});
