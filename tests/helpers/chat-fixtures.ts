// Builders shared by the chat and likes store tests.
import type { ChatMessage, ChatSummary, ConversationView } from '../../src/shared/chat.contract';
import type { ProfileCard } from '../../src/shared/profiles.contract';
import type { SessionUser } from '../../src/shared/user.contract';

export const OWN = 100;
export const card = (id: number, name = `Member ${id}`): ProfileCard =>
  ({ id, name, age: 30, city: 'Utrecht', region: null, country: 'NL', fictional: false, thumb: null });
export const user = (patch: Partial<SessionUser> = {}): SessionUser => ({
  id: 1, email: 'me@example.com', role: 'member', status: 'confirmed', credits: 20, paid_user: false, language: 'en', fictional_icon: '*',
  signup_date: '2026-01-01', notifications_disabled: [], email_prefs: {}, push_prefs: {}, invisible: false, show_explicit_images: false, unread_messages: 0, new_likes: 0,
  profile: { id: OWN, name: 'Me', status: 'active', main_image: null }, ...patch,
});
export const message = (id: number, conversation: number, sender: number, text = `m${id}`): ChatMessage =>
  ({ id, conversation_id: conversation, sender_profile_id: sender, kind: 'text', text, gift: null, image: null, created_at: 1_700_000_000_000 + id });
export const chat = (conversation: number, partner: number, unread = 0): ChatSummary => ({
  conversation: { id: conversation }, profile: card(partner), num_unread_messages: unread,
  last_message: { kind: 'text', text: 'hi', from_me: false, created_at: 1_700_000_000_000 },
});
export const view = (id: number | null, partner: number, messages: ChatMessage[] = [], patch: Partial<ConversationView> = {}): ConversationView => ({
  id, own_profile_id: OWN, profile: card(partner), blocked_reason: null, self_unconfirmed: false,
  prices: { message: 10, photo: 15, gift: 25 }, minimum_cost: null, message_price: 10, message_length: 1000, messages, has_more: false, ...patch,
});
