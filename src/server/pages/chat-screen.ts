import type { ChatsResponse, ConversationView, LikesResponse } from '../../shared/chat.contract';
import { listChats, openConversation } from '../chat/chat.service';
import { listLikes } from '../likes/likes.service';
import { RuleError } from '../rule-error';
import { memberRow } from './member-row';


export type ChatScreen =
  | { status: 200; chats: ChatsResponse; conversation: ConversationView | null }
  | { status: 403 | 404; chats: ChatsResponse; conversation: null; message: string };

/**
 * What the chat pages render first: the member's chats and, when the address names one, the
 * conversation (opening it reads it). Rule refusals come back as a status and translated message.
 */
export async function loadChatScreen(locals: App.Locals, target: { conversation: number } | { profile_id: number } | null): Promise<ChatScreen> {
  const { ctx, services, t } = locals;
  const row = memberRow(locals);
  if (!row) throw new Error('loadChatScreen needs a member');
  if (!target) return { status: 200, chats: await listChats(services.app, ctx.site, row), conversation: null };
  try {
    // Opened first, so the list already counts this conversation as read.
    const conversation = await openConversation(services.app, ctx.site, row, target, ctx.country);
    return { status: 200, chats: await listChats(services.app, ctx.site, row), conversation };
  } catch (err) {
    if (!(err instanceof RuleError)) throw err;
    const chats = await listChats(services.app, ctx.site, row);
    return { status: err.status === 403 ? 403 : 404, chats, conversation: null, message: t(err.key, err.params) };
  }
}

/** The member's likes for the likes pages. */
export async function loadLikesScreen(locals: App.Locals): Promise<LikesResponse> {
  const { ctx, services } = locals;
  const row = memberRow(locals);
  if (!row) throw new Error('loadLikesScreen needs a member');
  return listLikes(services.app, ctx.site, row);
}
