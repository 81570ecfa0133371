import type { ProfileCard } from '../../shared/profiles.contract';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import { listChats } from '../chat/chat.service';
import type { User } from '../db/schema';
import { listLikes } from '../likes/likes.service';

/** One line of a member's activity on the notifications page: who did what, when, and where it leads. */
export type ActivityItem =
  | { kind: 'liked_you' | 'match'; profile: ProfileCard; at: number; unseen: boolean; href: string }
  | { kind: 'messages'; profile: ProfileCard; at: number; count: number; href: string };

/**
 * What happened to the member lately, newest first: conversations with unread messages, likes received and
 * matches. Read through the Likes and Messages screens' own services, so the same people are left out (blocks,
 * deleted profiles, another site) and fictional profiles come with their flag.
 */
export async function memberActivity(app: AppContext, site: Site, user: User): Promise<ActivityItem[]> {
  const [likes, chats] = await Promise.all([listLikes(app, site, user), listChats(app, site, user)]);
  const matched = new Set(likes.matches.map((p) => p.id));
  const items: ActivityItem[] = [
    ...chats.chats.filter((c) => c.num_unread_messages > 0 && c.last_message).map((c) => ({
      kind: 'messages' as const, profile: c.profile, at: c.last_message?.created_at ?? 0, count: c.num_unread_messages, href: `/chats/${c.conversation.id}`,
    })),
    ...likes.liked_by.map(({ like_new, liked_at, ...profile }) => ({
      kind: matched.has(profile.id) ? ('match' as const) : ('liked_you' as const), profile, at: liked_at, unseen: like_new, href: `/members/${profile.id}`,
    })),
  ];
  return items.sort((a, b) => b.at - a.at);
}
