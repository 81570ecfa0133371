import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $likes, $likesStatus, loadLikes, receiveLike, resetLikes, setInitialLikes } from '../../src/core/likes/likes.store';
import { $user } from '../../src/core/session/store';
import { card, user } from '../helpers/chat-fixtures';
import { fakeApi } from '../helpers/fake-api';

let api: ReturnType<typeof fakeApi>;
beforeEach(() => {
  resetLikes();
  api = fakeApi();
  $user.set(user());
});
afterEach(() => {
  expect(api.unexpected).toEqual([]);
  vi.unstubAllGlobals();
});

describe('likes store', () => {
  it('loads given, received and matches and keeps the new-likes total', async () => {
    api.expectRequest('/api/likes.php').andRespond(200, {
      likes: [card(2)], liked_by: [{ ...card(3), like_new: true, liked_at: 1 }], matches: [], new_likes: 1,
    });
    const loading = loadLikes();
    expect($likesStatus.get()).toBe('loading');
    await loading;
    expect($likes.get().liked_by.map((p) => p.id)).toEqual([3]);
    expect($user.get()?.new_likes).toBe(1);
  });

  it('puts a realtime like first, marked new, and a match among the matches', () => {
    setInitialLikes({ likes: [card(4)], liked_by: [{ ...card(3), like_new: false, liked_at: 1 }], matches: [], new_likes: 0 });
    receiveLike(card(5), 1, false);
    receiveLike(card(4), 2, true);
    expect($likes.get().liked_by.map((p) => [p.id, p.like_new])).toEqual([[4, true], [5, true], [3, false]]);
    expect($likes.get().matches.map((p) => p.id)).toEqual([4]);
    expect($user.get()?.new_likes).toBe(2);
  });
});
