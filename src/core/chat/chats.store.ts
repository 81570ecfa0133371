import { atom } from 'nanostores';
import type { ChatMessage, ChatSummary, ChatsResponse } from '../../shared/chat.contract';
import { ApiError, api, call } from '../api/client';
import { createRefreshedList } from '../api/refreshed-list';
import { setTotals } from './totals.store';

/** The member's conversations, newest activity first (SPEC §3 Chat state "chats"). */
export const $chats = atom<ChatSummary[]>([]);
const removedListeners = new Set<(conversationId: number) => void>();
/** Called when a chat leaves the list (deleted here, in another tab, or by a failed reload). */
export function onChatRemoved(listener: (conversationId: number) => void): () => void {
  removedListeners.add(listener);
  return () => removedListeners.delete(listener);
}
const announceRemoved = (id: number) => { for (const l of removedListeners) l(id); };

const chatsList = createRefreshedList<ChatsResponse>('chats.php', (answer) => {
  $chats.set(answer.chats);
  setTotals({ unread_messages: answer.unread_messages });
});
/** 'loading' only before the first answer: later refreshes show no progress (SPEC §7). */
export const $chatsStatus = chatsList.$status;
/** The page's server-rendered list, so there is no spinner on first paint. */
export const setInitialChats = chatsList.setInitial;
/** GET /api/chats.php; concurrent callers share one request. */
export const loadChats = chatsList.load;

/** Changes one chat of the list in place (no-op when it is not listed). */
export function updateChat(conversationId: number, change: (chat: ChatSummary) => ChatSummary) {
  const chats = $chats.get();
  const index = chats.findIndex((c) => c.conversation.id === conversationId);
  if (index === -1) return;
  const next = [...chats];
  next[index] = change(chats[index]);
  $chats.set(next);
}

/** A new message moves its chat to the top with the new preview. Returns false when the chat is not listed. */
export function bumpChat(message: ChatMessage, fromMe: boolean, unreadDelta: number): boolean {
  const chats = $chats.get();
  const chat = chats.find((c) => c.conversation.id === message.conversation_id);
  if (!chat) return false;
  const updated: ChatSummary = {
    ...chat,
    last_message: { kind: message.kind, text: message.text, from_me: fromMe, created_at: message.created_at },
    num_unread_messages: Math.max(0, chat.num_unread_messages + unreadDelta),
  };
  $chats.set([updated, ...chats.filter((c) => c !== chat)]);
  return true;
}

/** Drops a chat from the list without asking the server (the server already knows). */
export function forgetChat(conversationId: number) {
  $chats.set($chats.get().filter((c) => c.conversation.id !== conversationId));
  announceRemoved(conversationId);
}

/**
 * Removes a chat: from the list at once, then tells the server. On failure the member is alerted
 * with the error and the list is reloaded (SPEC §4, §8).
 */
export async function deleteChat(conversationId: number, fallbackError: string): Promise<boolean> {
  const chat = $chats.get().find((c) => c.conversation.id === conversationId);
  forgetChat(conversationId);
  if (chat && chat.num_unread_messages > 0) {
    const total = $chats.get().reduce((n, c) => n + c.num_unread_messages, 0);
    setTotals({ unread_messages: total });
  }
  try {
    await call(() => api.delete('chats.php', { json: { conversation: conversationId } }).json());
    return true;
  } catch (err) {
    globalThis.alert?.(err instanceof ApiError ? err.message : fallbackError);
    await loadChats();
    return false;
  }
}

/** Test helper: forget everything. */
export function resetChats() {
  $chats.set([]);
  chatsList.reset();
}
