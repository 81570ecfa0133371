import { randomBytes } from 'node:crypto';
import { announceByMail } from '../notifications/notifications.service';
import {
  CHAT_PAGE_SIZE, type ChatsResponse, type ChatSummary, type ConversationView, type Gift,
  type SendBlockReason, type SendMessageInput, type SendMessageResponse,
} from '../../shared/chat.contract';
import { GIFTS, giftImage } from '../../shared/gifts';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import { InsufficientCreditsError } from '../credits/ledger';
import type { Database, Message, User } from '../db/schema';
import { jsonArrayFrom, jsonRows, onPostgres, preparedQuery, sqlTrue } from '../db/database';
import { lockMember } from '../db/locks';
import { PRESENCE_STALE_MS } from '../notifications/presence';
import { recordEvents } from '../events/events.service';
import { lowestMessagePrice } from '../payments/payments.service';
import { encodeImage } from '../photos/photos.service';
import { wakeJobRunners } from '../jobs/job-runner';
import { queueImageScore } from '../safety/images.service';
import { cardsByIds, requireOwnProfile, toCard } from '../profiles/profiles.service';
import { RuleError } from '../rule-error';
import * as repo from './chat.repository';
import { textMessageCredits } from './message-price';
import { type ExpressionBuilder, type Kysely, type QueryResult, sql, type Transaction } from 'kysely';
import { isUniqueViolation } from '../db/unique-violation';
import { mainThumb } from '../photos/photos.repository';
import {
  flagsOfReceived, forRecipient, recordSignals, refuseUnconfirmed, screenText, signalKinds, type SpamFacts, spamFactsQueries, spamVerdict, spamWindowStart, type TextScreen,
} from '../safety/safety.service';

/** A chat rule said no (translated by the route). */
export class ChatRuleError extends RuleError {}

type Q = Kysely<Database> | Transaction<Database>;

/** The other side of a conversation with what the rules need to know about them. */
async function findPartner(db: Q, site: Site, profileId: number) {
  return db
    .selectFrom('profiles')
    .leftJoin('users', 'users.id', 'profiles.user_id')
    .select(['profiles.id', 'profiles.name', 'profiles.status', 'profiles.invisible', 'profiles.fictional', 'profiles.user_id', 'users.status as user_status'])
    .where('profiles.id', '=', profileId)
    .where('profiles.site_id', '=', site.id)
    .executeTakeFirst();
}
type Partner = NonNullable<Awaited<ReturnType<typeof findPartner>>>;

async function blockBetween(db: Q, own: number, partner: number): Promise<'blocked' | 'blocked_by' | null> {
  const rows = await db
    .selectFrom('blocks')
    .select('blocker_profile_id')
    .where((eb) => eb.or([
      eb.and([eb('blocker_profile_id', '=', own), eb('blocked_profile_id', '=', partner)]),
      eb.and([eb('blocker_profile_id', '=', partner), eb('blocked_profile_id', '=', own)]),
    ]))
    .execute();
  if (rows.some((r) => r.blocker_profile_id === own)) return 'blocked';
  return rows.length > 0 ? 'blocked_by' : null;
}

/**
 * Why the member cannot write to this partner now, or null. Blocks hold both ways; a partner who
 * wrote while unconfirmed cannot be answered until they confirm; invisible members are only
 * answered, never written to first; deleted or disabled profiles take no messages.
 */
async function sendBlockReason(db: Q, own: number, partner: Partner, conversationId: number | null): Promise<SendBlockReason | null> {
  return (await blockBetween(db, own, partner.id)) ?? partnerRefusal(db, partner, conversationId);
}

/** `sendBlockReason` past the blocks: the partner's own state. */
async function partnerRefusal(db: Q, partner: Partner, conversationId: number | null): Promise<SendBlockReason | null> {
  if (partner.user_id !== null && partner.user_status === 'not_confirmed') return 'partner_unconfirmed';
  if (partner.status !== 'active') return 'unavailable';
  if (partner.invisible === 1 && !(conversationId !== null && (await repo.hasWritten(db, conversationId, partner.id)))) return 'invisible';
  return null;
}

const REASON_KEYS: Record<SendBlockReason, string> = {
  blocked: 'chat_error.blocked',
  blocked_by: 'chat_error.blocked_by',
  partner_unconfirmed: 'chat_error.partner_unconfirmed',
  invisible: 'chat_error.invisible',
  unavailable: 'chat_error.unavailable',
};

/**
 * Everything the send rules read, in one query (each was a round trip of its own: eight on PostgreSQL):
 * the sender's own profile and the id of a message already sent with this client_id (a retry); the
 * conversation (the member's side of `conversation`, or the pair's with `profile`); the partner on this
 * site with their account's status, blocks both ways, and whether a push subscription and an open tab
 * reach them; the member's balance and — only when a rule needs them — their started conversations and
 * free texts. Null when the member has no profile; `found` false when they have no side in `conversation`;
 * `partner` undefined when it is not on this site.
 */
async function sendFacts(
  db: Q, site: Site, userId: number, clientId: string, target: { conversation: number } | { profile: number },
  need: { started: boolean; freeTexts: boolean; spam: boolean }, now: number,
) {
  const kind = 'conversation' in target ? 'conversation' : 'profile';
  const targetId = 'conversation' in target ? target.conversation : target.profile;
  const row = (await sendFactsQuery(kind, need.started, need.freeTexts, need.spam)(db, site.id, userId, clientId, targetId, now - PRESENCE_STALE_MS, spamWindowStart(now))).rows[0];
  if (!row) return null;
  const partner: Partner | undefined = row.id == null ? undefined : {
    id: row.id, name: row.name as string, status: row.status as Partner['status'], invisible: row.invisible as number,
    fictional: row.fictional as number, user_id: row.user_id ?? null, user_status: row.user_status ?? null,
  };
  return {
    own: { id: row.own_id, status: row.own_status, name: row.own_name, repeatId: row.repeat_id == null ? null : Number(row.repeat_id) },
    found: kind === 'profile' || row.conversation_id != null,
    conversationId: row.conversation_id == null ? null : Number(row.conversation_id),
    partner,
    block: sqlTrue(row.blocked) ? ('blocked' as const) : sqlTrue(row.blocked_by) ? ('blocked_by' as const) : null,
    credits: Number(row.credits ?? 0),
    started: Number(row.started ?? 0),
    freeTexts: Number(row.free_texts ?? 0),
    reach: { push: sqlTrue(row.push), openTab: sqlTrue(row.open_tab) },
    spam: { recent: jsonRows<SpamFacts['recent'][number]>(row.recent_prints), held: jsonRows<SpamFacts['held'][number]>(row.held_prints) },
    messageId: row.message_id == null ? null : Number(row.message_id),
  };
}

/** `sendFacts`' query for one target kind and the facts it needs, prepared once (src/server/db/database.ts). */
function sendFactsQuery(kind: 'conversation' | 'profile', started: boolean, freeTexts: boolean, spam: boolean): SendFactsQuery {
  const key = `${kind}:${started}:${freeTexts}:${spam}`;
  let query = sendFactsQueries.get(key);
  if (!query) {
    query = preparedQuery((db, siteId: string, userId: number, clientId: string, targetId: number, since: number, windowStart: number) => {
      // `me` is the sender's profile, `pr` the partner's (null when not found on this site).
      type Eb = ExpressionBuilder<Database & { me: Database['profiles']; pr: Database['profiles']; acct: Database['users'] }, 'me' | 'pr' | 'acct'>;
      const facts = (eb: Eb) => [
        eb.selectFrom('messages').select('messages.id').whereRef('messages.sender_profile_id', '=', 'me.id').where('messages.client_id', '=', clientId).as('repeat_id'),
        eb.exists(eb.selectFrom('blocks').select('blocks.created_at').whereRef('blocks.blocker_profile_id', '=', 'me.id').whereRef('blocks.blocked_profile_id', '=', 'pr.id')).as('blocked'),
        eb.exists(eb.selectFrom('blocks').select('blocks.created_at').whereRef('blocks.blocker_profile_id', '=', 'pr.id').whereRef('blocks.blocked_profile_id', '=', 'me.id')).as('blocked_by'),
        (started ? eb.selectFrom('conversations as sc').select((x) => x.fn.countAll<number>().as('n')).whereRef('sc.starter_profile_id', '=', 'me.id') : eb.lit(0)).as('started'),
        (freeTexts
          ? eb.selectFrom('messages as ft').select((x) => x.fn.countAll<number>().as('n')).whereRef('ft.sender_profile_id', '=', 'me.id').where('ft.kind', '=', 'text').where('ft.credits', '=', 0)
          : eb.lit(0)).as('free_texts'),
        // Who hears of the message besides its stream (push, mail): looked up here rather than after the commit.
        eb.exists(eb.selectFrom('push_subscriptions').select('push_subscriptions.user_id').whereRef('push_subscriptions.user_id', '=', 'pr.user_id')).as('push'),
        eb.exists(eb.selectFrom('member_presence').select('member_presence.user_id').whereRef('member_presence.user_id', '=', 'pr.user_id')
          .where('member_presence.seen_at', '>=', since)).as('open_tab'),
        // The spam check's facts, for a text with a fingerprint.
        ...(spam ? (() => {
          const prints = spamFactsQueries(db as Q, { userId: eb.ref('acct.id'), profileId: eb.ref('me.id') }, windowStart);
          return [jsonArrayFrom(db, prints.recent as never).as('recent_prints'), jsonArrayFrom(db, prints.held as never).as('held_prints')];
        })() : [eb.lit(null).as('recent_prints'), eb.lit(null).as('held_prints')]),
        // PostgreSQL: the id the message will have (writeMessage makes its events' JSON before the one statement writes it).
        (onPostgres(db) ? sql<number | null>`nextval('messages_id_seq')` : sql<number | null>`null`).as('message_id'),
      ];
      const columns = [
        'me.id as own_id', 'me.status as own_status', 'me.name as own_name', 'acct.credits',
        'pr.id', 'pr.name', 'pr.status', 'pr.invisible', 'pr.fictional', 'pr.user_id', 'u.status as user_status',
      ] as const;
      const base = db.selectFrom('profiles as me').innerJoin('users as acct', 'acct.id', 'me.user_id');
      if (kind === 'conversation') {
        return base
          .leftJoin('chat_participants as cp', (join) => join.onRef('cp.profile_id', '=', 'me.id').on('cp.conversation_id', '=', targetId))
          .leftJoin('profiles as pr', (join) => join.onRef('pr.id', '=', 'cp.partner_profile_id').on('pr.site_id', '=', siteId))
          .leftJoin('users as u', 'u.id', 'pr.user_id')
          .select(columns)
          .select((eb) => [eb.ref('cp.conversation_id').as('conversation_id'), ...facts(eb as never)])
          .where('me.user_id', '=', userId);
      }
      // The pair's conversation by its unique (lower id, higher id) key.
      const low = sql<number>`case when ${sql.ref('me.id')} < ${targetId} then ${sql.ref('me.id')} else ${targetId} end`;
      const high = sql<number>`case when ${sql.ref('me.id')} < ${targetId} then ${targetId} else ${sql.ref('me.id')} end`;
      return base
        .leftJoin('profiles as pr', (join) => join.on('pr.id', '=', targetId).on('pr.site_id', '=', siteId))
        .leftJoin('users as u', 'u.id', 'pr.user_id')
        .select(columns)
        .select((eb) => [
          eb.selectFrom('conversations as pc').select('pc.id').where('pc.profile_low_id', '=', low).where('pc.profile_high_id', '=', high).as('conversation_id'),
          ...facts(eb as never),
        ])
        .where('me.user_id', '=', userId);
    }, ['\u0000site', -700001, '\u0000client', -700002, -700003, -700004]) as SendFactsQuery;
    sendFactsQueries.set(key, query);
  }
  return query;
}
type SendFactsQuery = (db: Q, siteId: string, userId: number, clientId: string, targetId: number, since: number, windowStart: number) => Promise<QueryResult<SendFactsRow>>;
const sendFactsQueries = new Map<string, SendFactsQuery>();
interface SendFactsRow {
  own_id: number; own_status: string; own_name: string; repeat_id: number | null;
  id: number | null; name: string | null; status: string | null; invisible: number | null; fictional: number | null; user_id: number | null;
  user_status: Partner['user_status']; conversation_id: number | null; blocked: unknown; blocked_by: unknown; credits: number | null; started: number | null; free_texts: number | null;
  push: unknown; open_tab: unknown; recent_prints: unknown; held_prints: unknown; message_id: number | null;
}

/** The member's own profile with what sending and opening need, in one query. */
async function ownProfileOf(db: Q, user: User) {
  const profile = await db.selectFrom('profiles').select(['id', 'status', 'name', 'country']).where('user_id', '=', user.id).executeTakeFirst();
  if (!profile) throw new ChatRuleError('no_profile', 'error.invalid_input', 400);
  return profile;
}

async function partnerCard(app: AppContext, profileId: number) {
  const [card] = await cardsByIds(app.db.db, [profileId], app.clock.now());
  if (!card) throw new ChatRuleError('not_found', 'error.not_found', 404);
  return card;
}

/** GET chats: the member's visible conversations, newest activity first, with unread counts. */
export async function listChats(app: AppContext, _site: Site, user: User): Promise<ChatsResponse> {
  const db = app.db.db;
  const own = await requireOwnProfile(db, user);
  const now = app.clock.now();
  const chats: ChatSummary[] = (await chatListQuery(db, own)).rows.map((r) => ({
    conversation: { id: r.conversation_id },
    profile: toCard(now)(r),
    last_message: r.kind ? { kind: r.kind, text: r.kind === 'text' ? (r.body ?? '').slice(0, 140) : null, from_me: r.sender_profile_id === own, created_at: r.created_at as number } : null,
    num_unread_messages: r.unread_count,
  }));
  return { chats, unread_messages: chats.reduce((n, c) => n + c.num_unread_messages, 0) };
}

/**
 * A member's visible chats, newest first (at most 500), each with its partner's card and the last message
 * the member has not cleared. Partners who blocked the member are left out (they cannot view or contact
 * them), deleted profiles too. One statement, compiled once: the list is read on every /chats view.
 */
const chatListQuery = preparedQuery((db, own: number) => db
  .selectFrom('chat_participants as cp')
  .innerJoin('profiles as p', 'p.id', 'cp.partner_profile_id')
  .leftJoin('messages as m', (join) => join.onRef('m.id', '=', 'cp.last_message_id').onRef('m.id', '>', 'cp.cleared_message_id'))
  .select(['cp.conversation_id', 'cp.unread_count', 'm.kind', 'm.body', 'm.sender_profile_id', 'm.created_at'])
  .select(['p.id', 'p.name', 'p.birth_date', 'p.city', 'p.region', 'p.country', 'p.fictional'])
  .select((eb) => mainThumb(eb.ref('p.id')))
  .where('cp.profile_id', '=', own)
  .where('cp.hidden', '=', 0)
  .where('p.status', '!=', 'deleted')
  .where((eb) => eb.not(eb.exists(eb.selectFrom('blocks').select('blocks.created_at').whereRef('blocks.blocker_profile_id', '=', 'cp.partner_profile_id').where('blocks.blocked_profile_id', '=', own))))
  .orderBy('cp.last_message_at', 'desc')
  .limit(500), [-740001]);

/** The balance and free texts the price rule reads (free texts counted only where the site gives any). */
async function priceFactsOf(db: Q, site: Site, user: User, own: number) {
  const credits = await repo.creditsOf(db, user.id);
  const freeTexts = !user.paid_user && site.free_messages > 0 ? await repo.countFreeTexts(db, own) : 0;
  return { credits, freeTexts };
}

/**
 * Opens a conversation (by id, or by partner profile for /members/{id}/chat): a page of history,
 * what the member may do, and the prices. Opening without `before` sets its unread count to 0.
 */
export async function openConversation(
  app: AppContext, site: Site, user: User, target: { conversation?: number; profile_id?: number; before?: number }, ipCountry: string | null = null,
): Promise<ConversationView> {
  const db = app.db.db;
  const ownProfile = await ownProfileOf(db, user);
  const own = ownProfile.id;
  let participant: Awaited<ReturnType<typeof repo.findParticipant>>;
  let partnerId: number;
  if (target.conversation !== undefined) {
    participant = await repo.findParticipant(db, target.conversation, own);
    if (!participant) throw new ChatRuleError('not_found', 'error.not_found', 404);
    partnerId = participant.partner_profile_id;
  } else {
    partnerId = target.profile_id as number;
    if (partnerId === own) throw new ChatRuleError('self', 'error.invalid_input', 400);
    const conversation = await repo.findConversationOfPair(db, own, partnerId);
    participant = conversation ? await repo.findParticipant(db, conversation.id, own) : undefined;
  }
  const partner = await findPartner(db, site, partnerId);
  // Invisible members stay invisible (their card too) unless a conversation with them already exists.
  if (!partner || partner.status === 'deleted' || ((partner.status === 'disabled' || partner.invisible === 1) && !participant)) {
    throw new ChatRuleError('not_found', 'error.not_found', 404);
  }
  const block = await blockBetween(db, own, partner.id);
  if (block === 'blocked_by') throw new ChatRuleError('blocked_by', 'profile.blocked', 403, { name: partner.name });

  const conversationId = participant?.conversation_id ?? null;
  const page = participant
    ? await repo.listMessages(db, participant.conversation_id, participant.cleared_message_id, target.before, CHAT_PAGE_SIZE)
    : { rows: [] as Message[], hasMore: false };
  if (participant && target.before === undefined) await markRead(app, user, participant.conversation_id, own);
  return {
    id: conversationId,
    own_profile_id: own,
    profile: await partnerCard(app, partner.id),
    blocked_reason: await sendBlockReason(db, own, partner, conversationId),
    self_unconfirmed: user.status === 'not_confirmed' && partner.user_id !== null,
    prices: { message: site.message_credits, photo: site.photo_credits, gift: site.gift_credits },
    message_price: textMessageCredits(site, user, await priceFactsOf(db, site, user, own)),
    minimum_cost: (await lowestMessagePrice(app, site, user, ipCountry, ownProfile.country)) ?? site.minimum_message_costs[ownProfile.country] ?? null,
    message_length: site.message_length,
    messages: await flagsOfReceived(db, page.rows.map(repo.toChatMessage), own),
    has_more: page.hasMore,
  };
}

/** Sets a conversation's unread count to 0 and tells the member's other tabs. */
export async function markRead(app: AppContext, user: User, conversationId: number, ownProfileId?: number): Promise<number> {
  const db = app.db.db;
  const own = ownProfileId ?? (await requireOwnProfile(db, user));
  const now = app.clock.now();
  const { events, total } = await db.transaction().execute(async (trx) => {
    const participant = await repo.findParticipant(trx, conversationId, own);
    if (!participant) throw new ChatRuleError('not_found', 'error.not_found', 404);
    if (participant.unread_count > 0) {
      await trx.updateTable('chat_participants').set({ unread_count: 0 }).where('conversation_id', '=', conversationId).where('profile_id', '=', own).execute();
    }
    const total = await repo.unreadTotal(trx, own);
    // Other tabs only hear of it when something changed.
    const events = participant.unread_count > 0
      ? await recordEvents(trx, [{ userId: user.id, event: { type: 'read', conversation_id: conversationId, unread_messages: total } }], now)
      : [];
    return { events, total };
  });
  await app.bus.publish(events);
  return total;
}

/** Removes a chat from the member's list and history (the partner keeps theirs). */
export async function deleteChat(app: AppContext, user: User, conversationId: number) {
  const db = app.db.db;
  const own = await requireOwnProfile(db, user);
  const now = app.clock.now();
  const events = await db.transaction().execute(async (trx) => {
    const participant = await repo.findParticipant(trx, conversationId, own);
    if (!participant) throw new ChatRuleError('not_found', 'error.not_found', 404);
    const last = await trx.selectFrom('messages').select((eb) => eb.fn.max('id').as('id')).where('conversation_id', '=', conversationId).executeTakeFirst();
    await trx
      .updateTable('chat_participants')
      .set({ hidden: 1, unread_count: 0, cleared_message_id: Number(last?.id ?? 0) })
      .where('conversation_id', '=', conversationId)
      .where('profile_id', '=', own)
      .execute();
    const total = await repo.unreadTotal(trx, own);
    return recordEvents(trx, [{ userId: user.id, event: { type: 'chat_deleted', conversation_id: conversationId, unread_messages: total } }], now);
  });
  await app.bus.publish(events);
}

/** The gift catalogue with this site's prices. */
export function giftCatalogue(site: Site): Gift[] {
  return GIFTS.map((g) => ({ id: g.id, credits: site.gift_credits * g.factor, image: giftImage(g.id) }));
}

export type OutgoingMessage =
  | (SendMessageInput & { kind: 'text' | 'gift' })
  | { kind: 'image'; conversation?: number; profile_id?: number; client_id: string; image: Buffer };

/**
 * Sends a text, gift or image. The price is taken from the ledger in the same transaction that
 * stores the message, so a refused payment stores nothing and a retried client_id is charged once.
 */
export async function sendMessage(app: AppContext, site: Site, user: User, input: OutgoingMessage, options: { free?: boolean } = {}): Promise<SendMessageResponse> {
  const db = app.db.db;
  // Who is written to: a conversation of this member, or a profile on this site — and all the rules
  // below read, in one query.
  const target = input.conversation !== undefined ? { conversation: input.conversation } : { profile: input.profile_id as number };
  // The safety check (issue 26) reads the text; a text long enough to have a fingerprint needs the spam facts.
  const text = input.kind === 'text' ? (input.text ?? '').trim() : null;
  const screen: TextScreen | null = text ? screenText(text, user.language) : null;
  const facts = await sendFacts(db, site, user.id, input.client_id, target, {
    started: !user.paid_user,
    freeTexts: input.kind === 'text' && !user.paid_user && site.free_messages > 0,
    spam: screen?.fingerprint != null,
  }, app.clock.now());
  if (!facts) throw new ChatRuleError('no_profile', 'error.invalid_input', 400);
  const ownProfile = facts.own;
  const own = ownProfile.id;
  if (ownProfile.status === 'deleted') throw new ChatRuleError('not_found', 'error.not_found', 404);

  const repeat = ownProfile.repeatId === null ? undefined : await repo.findMessageByClientId(db, own, input.client_id);
  if (repeat) return { message: repo.toChatMessage(repeat), conversation_id: repeat.conversation_id, credits: (await repo.creditsOf(db, user.id)) };
  // A retried client_id (above) is not counted again; the signup wizard's free message is not counted.
  if (!options.free) {
    await app.abuse.consume('message_minute', String(user.id));
    if (input.kind === 'image') await app.abuse.consume('upload_hour', String(user.id));
  }

  if (input.conversation === undefined && input.profile_id === own) throw new ChatRuleError('self', 'error.invalid_input', 400);
  if (!facts.found) throw new ChatRuleError('not_found', 'error.not_found', 404);
  const { partner } = facts;
  const conversationId = facts.conversationId;
  if (!partner || partner.status === 'deleted') throw new ChatRuleError('not_found', 'error.not_found', 404);
  // As sendBlockReason, with the blocks from the query above.
  const reason = facts.block ?? (await partnerRefusal(db, partner, conversationId));
  if (reason) throw new ChatRuleError(reason, REASON_KEYS[reason], 403, { name: partner.name });

  // What it is and what it costs.
  let body: string | null = null;
  let gift: string | null = null;
  let price: number;
  let ledgerReason: 'message' | 'gift' | 'photo';
  if (input.kind === 'text') {
    body = text ?? '';
    if (!body) throw new ChatRuleError('empty', 'chat_error.empty', 400);
    if (body.length > site.message_length) throw new ChatRuleError('too_long', 'chat_error.too_long', 400, { max: site.message_length });
    price = textMessageCredits(site, user, facts);
    ledgerReason = 'message';
  } else if (input.kind === 'gift') {
    const item = GIFTS.find((g) => g.id === input.gift);
    if (!item) throw new ChatRuleError('invalid_gift', 'error.invalid_input', 400);
    gift = item.id;
    price = site.gift_credits * item.factor;
    ledgerReason = 'gift';
  } else {
    price = site.photo_credits;
    ledgerReason = 'photo';
  }
  // The free message written in the signup wizard costs nothing.
  if (options.free) price = 0;
  const conversationLimit = () => new ChatRuleError('conversation_limit', 'chat_error.conversation_limit', 403, { count: site.free_conversations });
  if (conversationId === null && !user.paid_user && facts.started >= site.free_conversations) throw conversationLimit();
  // Refuse early when the balance cannot cover it (the ledger re-checks inside the transaction).
  if (facts.credits < price) throw new ChatRuleError('insufficient_credits', 'chat_error.insufficient_credits', 402);

  // The safety check (issue 26): spam held until staff review it; off-platform and money texts only once the sender confirmed.
  const verdict = screen ? spamVerdict(screen.fingerprint, partner.id, facts.spam) : null;
  if (screen) refuseUnconfirmed(screen, verdict, Boolean(options.free) || (input.kind === 'text' && input.confirmed === true), site.name);
  const signals = screen ? signalKinds(screen, verdict) : [];

  let imageJson: string | null = null;
  const written: string[] = [];
  if (input.kind === 'image') {
    const encoded = await encodeImage(input.image);
    const name = randomBytes(16).toString('hex');
    const file = `chat/${name}.webp`;
    const thumb = `chat/${name}-thumb.webp`;
    for (const [f, data] of [[file, encoded.main], [thumb, encoded.thumb]] as const) {
      written.push(f);
      await app.storage.put(f, data, 'image/webp');
    }
    // Blurred for the recipient until the score_image job checked it (docs/safety-images.md).
    imageJson = JSON.stringify({ file, thumb, width: encoded.width, height: encoded.height, safety: 'pending' });
  }

  const now = app.clock.now();
  const write = (q: Q) => repo.writeMessage(q, {
    id: facts.messageId, conversationId, siteId: site.id, own, partner: partner.id, userId: user.id, partnerUserId: partner.user_id,
    kind: input.kind, body, gift, image: imageJson, price, reason: ledgerReason, clientId: input.client_id, now,
    fingerprint: screen?.fingerprint ?? null, recipientCopy: (message) => forRecipient(message, screen?.flags ?? []),
  });
  try {
    // A text or gift is one statement on PostgreSQL, a first message too (writeMessage makes its conversation).
    // A free member's first message (the started count, under the member's lock), an image (its safety check
    // queued) and a text that raised safety signals write more, in one transaction.
    const { message, credits, events } = (conversationId !== null || user.paid_user) && input.kind !== 'image' && signals.length === 0
      ? await write(db)
      : await db.transaction().execute(async (trx) => {
        if (conversationId === null && !user.paid_user) {
          // Counted again under the member's lock: parallel first messages cannot pass the limit.
          await lockMember(trx, app.db.dialect, user.id);
          const existing = await repo.findConversationOfPair(trx, own, partner.id);
          if (!existing && (await repo.countStartedConversations(trx, own)) >= site.free_conversations) throw conversationLimit();
        }
        const written = await write(trx);
        if (input.kind === 'image') await queueImageScore(trx, 'chat', written.message.id, site.id, now);
        await recordSignals(trx, {
          siteId: site.id, userId: user.id, profileId: own, messageId: written.message.id, conversationId: written.message.conversation_id, now,
        }, signals, screen?.fingerprint ?? null);
        return written;
      });
    await app.bus.publish(events);
    if (input.kind === 'image') wakeJobRunners();
    if (partner.user_id !== null) {
      if (facts.reach.push) {
        app.push.notify(partner.user_id, conversationId === null ? 'new_conversations' : 'new_messages', (t) => ({
          title: t('push.message_title', { name: ownProfile.name }),
          body: t('push.message_body'),
          url: `/chats/${message.conversation_id}`,
          tag: `chat-${message.conversation_id}`,
        }));
      }
      if (!facts.reach.openTab) await announceByMail(app, partner.user_id, conversationId === null ? 'new_conversations' : 'new_messages', ownProfile.name);
    }
    return { message, conversation_id: message.conversation_id, credits };
  } catch (err) {
    if (written.length) await app.storage.delete(written).catch((cleanup) => app.logger.warn({ err: cleanup, files: written }, 'could not remove the files of a failed chat image'));
    if (err instanceof InsufficientCreditsError) throw new ChatRuleError('insufficient_credits', 'chat_error.insufficient_credits', 402);
    if (isUniqueViolation(err)) {
      // The same client_id raced itself: answer with the stored message, charged once.
      const stored = await repo.findMessageByClientId(db, own, input.client_id);
      if (stored) return { message: repo.toChatMessage(stored), conversation_id: stored.conversation_id, credits: await repo.creditsOf(db, user.id) };
    }
    throw err;
  }
}
/** The storage key of a chat image the member may see (a participant, not cleared); 404 otherwise. */
export async function chatImageFile(app: AppContext, user: User, messageId: number, size: 'thumb' | 'full'): Promise<string> {
  const db = app.db.db;
  const own = await requireOwnProfile(db, user);
  const row = await db
    .selectFrom('messages')
    .innerJoin('chat_participants as cp', (join) => join.onRef('cp.conversation_id', '=', 'messages.conversation_id').on('cp.profile_id', '=', own))
    .select(['messages.image', 'messages.id', 'cp.cleared_message_id'])
    .where('messages.id', '=', messageId)
    .where('messages.kind', '=', 'image')
    .executeTakeFirst();
  if (!row?.image || row.id <= row.cleared_message_id) throw new ChatRuleError('not_found', 'error.not_found', 404);
  const image = JSON.parse(row.image) as { file: string; thumb: string };
  return size === 'thumb' ? image.thumb : image.file;
}
