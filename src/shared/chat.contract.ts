import * as v from 'valibot';
import type { ProfileCard } from './profiles.contract';
import type { CreditsEvent } from './payments.contract';
import { IdSchema } from './ids';
import type { TextFlag } from './safety.contract';

/**
 * Chat, likes and realtime contract (SPEC §2 chats, §3 Chat state, §4 likes and removing a chat,
 * §7 chats/likes/auto-like/DELETE chat). Shared by the API routes and the client stores.
 */

/** Free members may start this many conversations (SPEC §6, §9). */
export const FREE_CONVERSATIONS = 2;
/** Messages per history page; older ones load on scroll. */
export const CHAT_PAGE_SIZE = 30;
/** Chat list column from this width up (SPEC §4 "from 992px up, 300 to 400px wide"). */
export const CHAT_SPLIT_MIN_WIDTH = 992;
/** Likes reload this long after the auto-like call (SPEC §9). */
export const AUTO_LIKE_RELOAD_MS = 500;
/** Periodic refresh of user, chats and likes (SPEC §4, §9). */
export const REFRESH_MS = 60_000;
export const REFRESH_PUSH_MS = 300_000;
export const REFRESH_FIRST_MS = 5_000;
/** Images sent in chat: same formats and size limit as profile photos. */
export const CHAT_IMAGE_PATH = '/api/chat-image.php';

export const ConversationIdSchema = IdSchema;
const ProfileId = IdSchema;
/** A client-made id (e.g. crypto.randomUUID()) so a retried send is stored and charged once. */
const ClientId = v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9-]+$/));

/**
 * POST /api/messages.php — send text or a gift. Give `conversation` for an existing chat, or
 * `profile_id` to write to a profile (the conversation is created with the first message).
 * Text length is checked against the site's message_length on the server.
 */
export const SendMessageSchema = v.pipe(
  v.object({
    conversation: v.optional(ConversationIdSchema),
    profile_id: v.optional(ProfileId),
    client_id: ClientId,
    kind: v.picklist(['text', 'gift']),
    text: v.optional(v.pipe(v.string(), v.maxLength(20_000))),
    gift: v.optional(v.pipe(v.string(), v.maxLength(32))),
    /** The sender saw "Are you sure?" for this text and sends it anyway (issue 26). */
    confirmed: v.optional(v.boolean()),
  }),
  v.check((m) => (m.conversation === undefined) !== (m.profile_id === undefined), 'chat_error.target_required'),
);
export type SendMessageInput = v.InferOutput<typeof SendMessageSchema>;

/** DELETE /api/chats.php — body { conversation } (SPEC §7 "DELETE chat endpoint"). */
export const DeleteChatSchema = v.object({ conversation: ConversationIdSchema });
/** POST /api/chat-read.php — the open conversation was read (unread count to 0). */
export const ReadChatSchema = v.object({ conversation: ConversationIdSchema });

export type MessageKind = 'text' | 'image' | 'gift';
/**
 * A chat image's explicit-image check (docs/safety-images.md): 'pending' until the job scored it,
 * 'explicit' or 'ok' after, 'unchecked' when it could not be read. The recipient sees every state
 * but 'ok' blurred with "View" (unless their setting shows explicit images); the sender never.
 */
export type ImageSafety = 'pending' | 'ok' | 'explicit' | 'unchecked';
export interface ChatMessage {
  id: number;
  conversation_id: number;
  sender_profile_id: number;
  kind: MessageKind;
  text: string | null;
  /** Gift id from the catalogue (kind gift). */
  gift: string | null;
  /** Access-checked URLs of a chat image (kind image). */
  image: { thumb: string; full: string; width: number; height: number; safety: ImageSafety } | null;
  created_at: number;
  /** What the safety check noticed (issue 26): only on the recipient's copy, never the sender's. */
  flags?: TextFlag[];
}

/** Why the member cannot write in this conversation right now, or null. */
export type SendBlockReason =
  | 'blocked' // the member blocked the partner
  | 'blocked_by' // the partner blocked the member
  | 'partner_unconfirmed' // the partner wrote while unconfirmed: no reply until they confirm
  | 'invisible' // the partner is invisible and has not written first
  | 'unavailable'; // the partner's profile is deleted or disabled

export interface ChatSummary {
  conversation: { id: number };
  profile: ProfileCard;
  last_message: { kind: MessageKind; text: string | null; from_me: boolean; created_at: number } | null;
  num_unread_messages: number;
}

export interface ConversationView {
  /** null when no message was exchanged yet (/members/{id}/chat before the first message). */
  id: number | null;
  /** The member's own profile id, to tell own messages from the partner's. */
  own_profile_id: number;
  profile: ProfileCard;
  blocked_reason: SendBlockReason | null;
  /** The member is unconfirmed and the partner therefore cannot reply yet. */
  self_unconfirmed: boolean;
  prices: { message: number; photo: number; gift: number };
  /** Lowest price of a text message in money for the member: the cheapest bundle with the running discount (else the site minimum_message_costs). */
  minimum_cost: { costs: number; currency: string } | null;
  /** What this member's next text message costs in credits (0: a free text, or premium chat at zero credits). */
  message_price: number;
  message_length: number;
  messages: ChatMessage[];
  has_more: boolean;
}

/** GET /api/chats.php */
export interface ChatsResponse { chats: ChatSummary[]; unread_messages: number }
/** GET /api/chat.php?conversation=ID[&before=MESSAGE_ID] or ?profile_id=ID */
export type ChatResponse = ConversationView;
/** POST /api/messages.php and /api/chat-image.php */
export interface SendMessageResponse { message: ChatMessage; conversation_id: number; credits: number }

export interface Gift { id: string; credits: number; image: string }
/** GET /api/gifts.php */
export interface GiftsResponse { gifts: Gift[] }

/** GET /api/likes.php — given likes, received likes (new first), and matches. */
export interface LikedByProfile extends ProfileCard { like_new: boolean; liked_at: number }
export interface LikesResponse {
  likes: ProfileCard[];
  liked_by: LikedByProfile[];
  matches: ProfileCard[];
  new_likes: number;
}
export const LIKE_TYPES = ['received', 'given', 'matches'] as const;
export type LikeType = (typeof LIKE_TYPES)[number];
/** GET /api/auto-like.php — a real pending like not shown yet, for the match modal, or null. */
export interface AutoLikeResponse { profile: ProfileCard | null; match: boolean }

/** Server-Sent Events on GET /api/events.php (ids resume with Last-Event-ID). */
export const EVENTS_PATH = '/api/events.php';
export type ChatEvent =
  | { type: 'message'; message: ChatMessage; unread_messages: number }
  | { type: 'read'; conversation_id: number; unread_messages: number }
  | { type: 'chat_deleted'; conversation_id: number; unread_messages: number }
  /** A chat image was checked (both members of the conversation). */
  | { type: 'image_safety'; conversation_id: number; message_id: number; safety: ImageSafety }
  | { type: 'like'; profile: ProfileCard; new_likes: number }
  | { type: 'match'; profile: ProfileCard; new_likes: number }
  | CreditsEvent;
