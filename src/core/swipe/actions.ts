import type { SwipeDeck } from '../../shared/profiles.contract';
import { api, call } from '../api/client';
import { announceMatch } from '../likes/like-modal.store';

export const loadDeck = () => call(() => api.get('swipe.php').json<SwipeDeck>());
export const sendSwipe = (profile_id: number, decision: 'like' | 'pass') =>
  call(() => api.post('swipe.php', { json: { profile_id, decision }, retry: 0 }).json<{ match: boolean; remaining: number }>())
    .then((result) => {
      if (result.match) void announceMatch(profile_id);
      return result;
    });
