import type { LikeType } from '../../../shared/chat.contract';
import type { ChatScreen } from '../chat-screen';
import type { MemberPageData } from '../member-page-data';
import type { BodyLocals, MemberBody } from './body';
import { chatBody } from './chat-body';
import { likesBody } from './likes-body';
import { membersBody, visitNetwork } from './members-body';
import { ownProfileBody } from './own-profile-body';
import { profileScreenBody } from './profile-body';

/**
 * The body of the member page at `url` from the value its loader answered (src/server/pages/member-page-data.ts),
 * as the page itself makes it; null where the page would not show a body of its own (a profile that does not
 * exist: the 404 page).
 */
export function bodyOfMemberPage(locals: BodyLocals, url: URL, cookie: string | undefined, data: MemberPageData): MemberBody | null {
  switch (data.route) {
    case 'members':
      return membersBody(locals, url, visitNetwork(url, cookie), data.value as Parameters<typeof membersBody>[3]);
    case 'members-id': {
      const screen = data.value as Parameters<typeof profileScreenBody>[1];
      return screen.profile || screen.blockedBy ? profileScreenBody(locals, screen) : null;
    }
    case 'chats':
      return chatBody(locals, url, data.value as ChatScreen);
    case 'likes':
      return likesBody(locals, (url.pathname.split('/')[2] ?? 'received') as LikeType, data.value as Parameters<typeof likesBody>[2]);
    case 'profile':
      return ownProfileBody(locals, data.value as Parameters<typeof ownProfileBody>[1]);
  }
}
