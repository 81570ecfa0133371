import { api, call } from '../api/client';
import { announceMatch } from '../likes/like-modal.store';

/** Likes a profile; a like back is a match, which opens the match modal (src/core/likes). */
export const likeProfile = (profile_id: number, source = 'profile') =>
  call(() => api.post('like.php', { json: { profile_id, source }, retry: 0 }).json<{ match: boolean; remaining: number | null }>())
    .then((result) => {
      if (result.match) void announceMatch(profile_id);
      return result;
    });
export const blockProfile = (profile_id: number) => call(() => api.post('block.php', { json: { profile_id }, retry: 0 }).json());
export const unblockProfile = (profile_id: number) => call(() => api.delete('block.php', { json: { profile_id } }).json());
/** Reports a profile, or one of its messages in a chat (message_id). */
export const reportProfile = (profile_id: number, reason: string, details: string, message_id?: number) =>
  call(() => api.post('report.php', { json: { profile_id, reason, details, ...(message_id ? { message_id } : {}) }, retry: 0 }).json());

export interface MatchCard { id: number; name: string; age: number; city: string | null; fictional: boolean; thumb: string | null; shared: number }
export const findMatches = (query: Record<string, string>) =>
  call(() => api.get('match-finder.php', { searchParams: query }).json<{ results: MatchCard[] }>());
