import { atom, computed, map } from 'nanostores';
import {
  CHAT_IMAGE_PATH, type ChatMessage, type ConversationView, type ImageSafety, type MessageKind, type SendMessageInput, type SendMessageResponse,
} from '../../shared/chat.contract';
import { ApiError, api, call } from '../api/client';
import { uploadWithProgress } from '../api/upload';
import { blockProfile, reportProfile, unblockProfile } from '../profiles/actions';
import { $user } from '../session/store';
import { dismissToastKey, showToast, toastText } from '../toast/toast.store';
import { $chats, bumpChat, forgetChat, loadChats, onChatRemoved, updateChat } from './chats.store';
import { setTotals } from './totals.store';

/** A message on its way: shown at once as a pending bubble, replaced by the server's message. */
export interface PendingMessage {
  client_id: string;
  kind: MessageKind;
  text: string | null;
  gift: string | null;
  /** Local preview of an image being uploaded. */
  preview: string | null;
  /** Upload progress of an image, 0–100. */
  progress: number | null;
  created_at: number;
}
/** A refusal to show in the conversation: the API's code and translated message (null: network). */
export interface ChatNotice {
  code: string;
  message: string | null;
}
export interface ConversationState extends ConversationView {
  /** The conversation id as a string, or `p<profile id>` before the first message exists. */
  key: string;
  pending: PendingMessage[];
  loadingOlder: boolean;
  draft: string;
  error: ChatNotice | null;
}
export type ConversationTarget = { conversation: number } | { profile_id: number };

/** Conversations opened in this tab, keyed by conversation (SPEC §3 "chat_messages keyed by conversation"). */
export const $conversations = map<Record<string, ConversationState>>({});
/** The conversation on screen, if any. */
export const $openKey = atom<string | null>(null);
/** A conversation that could not be opened (not found, blocked by the partner…). */
export const $openError = atom<ChatNotice | null>(null);
export const $openConversation = computed([$conversations, $openKey], (all, key) => (key ? (all[key] ?? null) : null));
/** Last opened chat profile and when (SPEC §3). */
export const $lastOpened = atom<{ profile_id: number; at: number } | null>(null);

export const keyOf = (target: ConversationTarget) => ('conversation' in target ? String(target.conversation) : `p${target.profile_id}`);
const keyOfView = (view: Pick<ConversationView, 'id' | 'profile'>) => (view.id !== null ? String(view.id) : `p${view.profile.id}`);
const targetOf = (state: ConversationState): ConversationTarget =>
  state.id !== null ? { conversation: state.id } : { profile_id: state.profile.id };

// Message ids already counted, so an event replayed after a reconnect never counts twice.
const seen = new Set<number>();
function remember(id: number) {
  seen.add(id);
  if (seen.size > 5000) seen.delete(seen.values().next().value as number);
}

const toNotice = (err: unknown): ChatNotice =>
  err instanceof ApiError ? { code: err.code, message: err.message } : { code: 'network', message: null };

/** Oldest → newest, each id once. */
export function mergeMessages(current: ChatMessage[], incoming: ChatMessage[]): ChatMessage[] {
  const byId = new Map(current.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

function patch(key: string, change: Partial<ConversationState> | ((s: ConversationState) => Partial<ConversationState>)) {
  const state = $conversations.get()[key];
  if (!state) return;
  $conversations.setKey(key, { ...state, ...(typeof change === 'function' ? change(state) : change) });
}

/** Moves a `p<id>` conversation under its real id once the server created it. */
function rekey(oldKey: string, id: number): string {
  const key = String(id);
  if (oldKey === key) return key;
  const all = { ...$conversations.get() };
  const state = all[oldKey];
  if (!state) return key;
  delete all[oldKey];
  const existing = all[key];
  all[key] = { ...state, ...(existing ? { messages: mergeMessages(existing.messages, state.messages) } : {}), id, key };
  $conversations.set(all);
  if ($openKey.get() === oldKey) $openKey.set(key);
  return key;
}

function store(view: ConversationView): string {
  const key = keyOfView(view);
  const previous = $conversations.get()[key] ?? $conversations.get()[`p${view.profile.id}`];
  for (const m of view.messages) remember(m.id);
  $conversations.setKey(key, {
    ...view,
    key,
    messages: mergeMessages(previous?.messages ?? [], view.messages),
    has_more: previous && previous.messages.length > view.messages.length ? previous.has_more : view.has_more,
    pending: previous?.pending ?? [],
    loadingOlder: false,
    draft: previous?.draft ?? '',
    error: null,
  });
  if (previous && previous.key !== key) {
    const all = { ...$conversations.get() };
    delete all[previous.key];
    $conversations.set(all);
  }
  return key;
}

/** Opening a conversation reads it: its unread count drops to 0 here at once (SPEC §4). */
function markOpenedLocally(conversationId: number | null) {
  if (conversationId === null) return;
  const chat = $chats.get().find((c) => c.conversation.id === conversationId);
  if (!chat || chat.num_unread_messages === 0) return;
  updateChat(conversationId, (c) => ({ ...c, num_unread_messages: 0 }));
  const user = $user.get();
  if (user) setTotals({ unread_messages: Math.max(0, user.unread_messages - chat.num_unread_messages) });
}

/** The page's server-rendered conversation (the server already marked it read). */
export function setInitialConversation(view: ConversationView) {
  const key = store(view);
  $openKey.set(key);
  $openError.set(null);
  $lastOpened.set({ profile_id: view.profile.id, at: Date.now() });
  markOpenedLocally(view.id);
}

/** Shows a conversation; loads (and so reads) it from the server, keeping what is already here. */
export async function openConversation(target: ConversationTarget): Promise<void> {
  const key = keyOf(target);
  $openKey.set(key);
  $openError.set(null);
  const known = $conversations.get()[key];
  const chat = 'conversation' in target ? $chats.get().find((c) => c.conversation.id === target.conversation) : undefined;
  $lastOpened.set({ profile_id: known?.profile.id ?? chat?.profile.id ?? ('profile_id' in target ? target.profile_id : 0), at: Date.now() });
  markOpenedLocally('conversation' in target ? target.conversation : null);
  try {
    const view = await call(() => api.get('chat.php', { searchParams: { ...target } }).json<ConversationView>());
    const stored = store(view);
    if ($openKey.get() === key) $openKey.set(stored);
  } catch (err) {
    if ($openKey.get() === key && !$conversations.get()[key]) $openError.set(toNotice(err));
  }
}

export function closeConversation() {
  $openKey.set(null);
  $openError.set(null);
}

/** Loads the page of history before the oldest message shown (on scroll to the top). */
export async function loadOlder(key: string): Promise<void> {
  const state = $conversations.get()[key];
  if (!state || state.id === null || !state.has_more || state.loadingOlder || state.messages.length === 0) return;
  patch(key, { loadingOlder: true });
  try {
    const view = await call(() =>
      api.get('chat.php', { searchParams: { conversation: state.id as number, before: state.messages[0].id } }).json<ConversationView>());
    for (const m of view.messages) remember(m.id);
    patch(key, (s) => ({ messages: mergeMessages(view.messages, s.messages), has_more: view.has_more, loadingOlder: false }));
  } catch (err) {
    patch(key, { loadingOlder: false, error: toNotice(err) });
  }
}

export function setDraft(key: string, draft: string) {
  patch(key, { draft });
}
export function clearError(key: string) {
  patch(key, { error: null });
}

const newClientId = () =>
  globalThis.crypto?.randomUUID?.() ?? `c-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

/** Puts the server's message in place of the pending bubble; the chat list follows. */
function settle(key: string, clientId: string, response: SendMessageResponse): string {
  const finalKey = rekey(key, response.conversation_id);
  remember(response.message.id);
  patch(finalKey, (s) => ({
    pending: s.pending.filter((p) => p.client_id !== clientId),
    messages: mergeMessages(s.messages, [response.message]),
  }));
  setTotals({ credits: response.credits });
  // Not listed yet (the chat's first message): a list already on its way may predate it.
  if (!bumpChat(response.message, true, 0)) void loadChats({ fresh: true });
  return finalKey;
}

const SEND_FAILED_TOAST = 'chat-send-failed';

async function send(
  key: string,
  pending: Omit<PendingMessage, 'client_id' | 'created_at'>,
  request: (target: ConversationTarget, clientId: string, onProgress: (p: number) => void) => Promise<SendMessageResponse>,
  onFailure?: () => void,
  retry?: () => void,
): Promise<number | null> {
  const state = $conversations.get()[key];
  if (!state) return null;
  const entry: PendingMessage = { ...pending, client_id: newClientId(), created_at: Date.now() };
  patch(key, (s) => ({ pending: [...s.pending, entry], error: null }));
  const onProgress = (progress: number) =>
    patch(currentKey(key, state), (s) => ({ pending: s.pending.map((p) => (p.client_id === entry.client_id ? { ...p, progress } : p)) }));
  try {
    const response = await request(targetOf(state), entry.client_id, onProgress);
    settle(currentKey(key, state), entry.client_id, response);
    dismissToastKey(SEND_FAILED_TOAST);
    return response.conversation_id;
  } catch (err) {
    const now = currentKey(key, state);
    // A refusal (no credits, blocked …) shows in the chat; a lost connection or server trouble shows once, as the toast with its retry.
    const retryable = retry && !(err instanceof ApiError && err.status < 500);
    patch(now, (s) => ({ pending: s.pending.filter((p) => p.client_id !== entry.client_id), error: retryable ? null : toNotice(err) }));
    onFailure?.();
    if (retryable) showToast({ key: SEND_FAILED_TOAST, text: toastText('failed'), tone: 'error', action: { label: toastText('tryAgain'), run: retry } });
    return null;
  } finally {
    if (entry.preview) URL.revokeObjectURL?.(entry.preview);
  }
}

// A `p<id>` conversation may have got its real id while a request was under way.
function currentKey(key: string, state: ConversationState): string {
  if ($conversations.get()[key]) return key;
  const moved = Object.values($conversations.get()).find((s) => s.profile.id === state.profile.id);
  return moved?.key ?? key;
}

const postMessage = (json: SendMessageInput) =>
  call(() => api.post('messages.php', { json, retry: 0 }).json<SendMessageResponse>());

/**
 * Sends the draft as a text message. The draft empties at once and comes back if the send fails
 * (no credits, blocked, too long…), with the refusal shown. Answers the conversation id, or null.
 */
export function sendText(key: string, options: { confirmed?: boolean } = {}): Promise<number | null> {
  const state = $conversations.get()[key];
  const text = state?.draft.trim() ?? '';
  if (!state || !text) return Promise.resolve(null);
  patch(key, { draft: '', error: null });
  // "Send anyway" after the server's "Are you sure?" (issue 26): the same text, confirmed.
  const confirmed = options.confirmed ? { confirmed: true } : {};
  return send(
    key,
    { kind: 'text', text, gift: null, preview: null, progress: null },
    (target, client_id) => postMessage({ ...target, client_id, kind: 'text', text, ...confirmed }),
    () => {
      const now = currentKey(key, state);
      patch(now, (s) => ({ draft: s.draft ? `${text}\n${s.draft}` : text }));
    },
    // The failed text is back in the draft: sending the draft again sends it.
    () => void sendText(currentKey(key, state)),
  );
}

/** Sends a gift from the catalogue. */
export function sendGift(key: string, gift: string): Promise<number | null> {
  return send(
    key,
    { kind: 'gift', text: null, gift, preview: null, progress: null },
    (target, client_id) => postMessage({ ...target, client_id, kind: 'gift', gift }),
  );
}

/** Uploads an image into the conversation with progress. */
export function uploadChatImage(target: ConversationTarget, file: File, clientId: string, onProgress: (percent: number) => void): Promise<SendMessageResponse> {
  const query = new URLSearchParams(
    'conversation' in target ? { conversation: String(target.conversation) } : { profile_id: String(target.profile_id) },
  );
  query.set('client_id', clientId);
  return uploadWithProgress(`${CHAT_IMAGE_PATH}?${query}`, file, onProgress);
}

/** Sends an image (shown at once from the local file, with upload progress). */
export function sendImage(key: string, file: File): Promise<number | null> {
  const preview = typeof URL.createObjectURL === 'function' ? URL.createObjectURL(file) : null;
  return send(
    key,
    { kind: 'image', text: null, gift: null, preview, progress: 0 },
    (target, clientId, onProgress) => uploadChatImage(target, file, clientId, onProgress),
  );
}

/** POST /api/chat-read.php: the open, visible conversation got a message and it was seen. */
export async function markRead(conversationId: number): Promise<void> {
  updateChat(conversationId, (c) => ({ ...c, num_unread_messages: 0 }));
  try {
    const { unread_messages } = await call(() =>
      api.post('chat-read.php', { json: { conversation: conversationId }, retry: 0 }).json<{ unread_messages: number }>());
    setTotals({ unread_messages });
  } catch {
    // The next refresh brings the right count.
  }
}

const isVisible = () => typeof document === 'undefined' || document.visibilityState === 'visible';

/**
 * A message from the realtime connection: into its conversation (once), to the top of the list,
 * and read at once when its conversation is open and visible.
 */
export function receiveMessage(message: ChatMessage, unreadMessages: number) {
  const own = $user.get()?.profile.id;
  const fromMe = message.sender_profile_id === own;
  const key = String(message.conversation_id);
  // The partner wrote first while /members/{id}/chat was open: that view becomes the conversation.
  if (!fromMe && !$conversations.get()[key] && $conversations.get()[`p${message.sender_profile_id}`]) {
    rekey(`p${message.sender_profile_id}`, message.conversation_id);
  }
  const duplicate = seen.has(message.id);
  remember(message.id);
  const state = $conversations.get()[key];
  if (state && !state.messages.some((m) => m.id === message.id)) {
    // Our own send seen here before its answer: it takes the place of the pending bubble.
    const twin = fromMe ? state.pending.find((p) => p.kind === message.kind && p.text === message.text && p.gift === message.gift) : undefined;
    patch(key, (s) => ({
      messages: mergeMessages(s.messages, [message]),
      pending: twin ? s.pending.filter((p) => p !== twin) : s.pending,
    }));
  }
  const openAndSeen = $openKey.get() === key && isVisible();
  if (!duplicate && !bumpChat(message, fromMe, fromMe || openAndSeen ? 0 : 1)) void loadChats({ fresh: true });
  setTotals({ unread_messages: unreadMessages });
  if (!fromMe && openAndSeen && !duplicate) void markRead(message.conversation_id);
}

/** Another tab (or the server) marked a conversation read. */
export function receiveRead(conversationId: number, unreadMessages: number) {
  updateChat(conversationId, (c) => ({ ...c, num_unread_messages: 0 }));
  setTotals({ unread_messages: unreadMessages });
}

/** The chat was deleted in another tab. */
export function receiveChatDeleted(conversationId: number, unreadMessages: number) {
  forgetChat(conversationId);
  setTotals({ unread_messages: unreadMessages });
}

/** A chat image was checked: its bubble follows (blurred or not) wherever the conversation is loaded. */
export function receiveImageSafety(conversationId: number, messageId: number, safety: ImageSafety) {
  patch(String(conversationId), (s) => ({
    messages: s.messages.map((m) => (m.id === messageId && m.image ? { ...m, image: { ...m.image, safety } } : m)),
  }));
}

/** When the tab comes back into view, the open conversation's new messages count as read. */
export function readOpenConversationIfUnread() {
  const key = $openKey.get();
  const id = key && /^\d+$/.test(key) ? Number(key) : null;
  if (id === null || !isVisible()) return;
  const chat = $chats.get().find((c) => c.conversation.id === id);
  if (chat && chat.num_unread_messages > 0) void markRead(id);
}

/** Blocks the partner from the conversation header; the composer closes with the reason. */
export async function blockPartner(key: string): Promise<ChatNotice | null> {
  const state = $conversations.get()[key];
  if (!state) return null;
  try {
    await blockProfile(state.profile.id);
    patch(key, { blocked_reason: 'blocked' });
    return null;
  } catch (err) {
    return toNotice(err);
  }
}

/** Lifts the block; the conversation is reloaded for what applies now. */
export async function unblockPartner(key: string): Promise<ChatNotice | null> {
  const state = $conversations.get()[key];
  if (!state) return null;
  try {
    await unblockProfile(state.profile.id);
    patch(key, { blocked_reason: null });
    await openConversation(targetOf(state));
    return null;
  } catch (err) {
    return toNotice(err);
  }
}

/** Reports the partner, or one of their messages. */
export async function reportPartner(key: string, reason: string, details: string, messageId?: number): Promise<ChatNotice | null> {
  const state = $conversations.get()[key];
  if (!state) return null;
  try {
    await reportProfile(state.profile.id, reason, details, messageId);
    return null;
  } catch (err) {
    return toNotice(err);
  }
}

onChatRemoved((conversationId) => {
  const key = String(conversationId);
  if (!$conversations.get()[key]) return;
  const all = { ...$conversations.get() };
  delete all[key];
  $conversations.set(all);
  if ($openKey.get() === key) $openKey.set(null);
});

/** Test helper: forget everything. */
export function resetConversations() {
  $conversations.set({});
  $openKey.set(null);
  $openError.set(null);
  $lastOpened.set(null);
  seen.clear();
}
