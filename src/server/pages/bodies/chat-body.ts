import { ChatAppIsland } from '../../../islands/chat/ChatApp';
import { fictionalTexts } from '../../../shared/site-texts';
import type { ChatScreen } from '../chat-screen';
import { html, raw } from '../html';
import { islandMarkup } from '../island-data';
import { type BodyLocals, type MemberBody, memberBody } from './body';

/** The chat screen of /chats, /chats/{id} and a member's /members/{id}/chat (the ChatApp island). */
export function chatBody(locals: BodyLocals, url: URL, screen: ChatScreen): MemberBody {
  const { ctx, t, user } = locals;
  const fictional = fictionalTexts(ctx.site, ctx.locale);
  const partner = screen.conversation?.profile.name;
  const title = `${partner ? t('chat.title_with', { name: partner }) : t('chat.title')} · ${ctx.site.name}`;
  if (screen.status !== 200) {
    return memberBody(title, html`<section class="container chat-refused"><h1>${screen.message}</h1><p><a class="btn btn-primary" href="/chats">${t('chat.back')}</a></p></section>`, screen.status);
  }
  return memberBody(title, raw(islandMarkup('chat-app', ChatAppIsland, ctx.locale, {
    initialChats: screen.chats, initialConversation: screen.conversation, credits: user?.credits ?? 0,
    fictional: { icon: fictional.icon, label: fictional.singular, warning: fictional.warning }, openGift: url.searchParams.get('gift') === '1',
  })));
}
