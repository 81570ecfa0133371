import type { Expression, Kysely, Transaction } from 'kysely';
import { hotQuery, onPostgres, preparedQuery, sqlTrue } from '../db/database';
import type { ChatMessage, ImageSafety } from '../../shared/chat.contract';
import type { Database, Message } from '../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

/** The conversation of two profiles, if any. */
export function findConversationOfPair(db: Q, a: number, b: number) {
  const [low, high] = a < b ? [a, b] : [b, a];
  return db.selectFrom('conversations').selectAll().where('profile_low_id', '=', low).where('profile_high_id', '=', high).executeTakeFirst();
}

/** One side of a conversation, only for its own member (other members' ids find nothing). */
export function findParticipant(db: Q, conversationId: number, profileId: number) {
  return db.selectFrom('chat_participants').selectAll().where('conversation_id', '=', conversationId).where('profile_id', '=', profileId).executeTakeFirst();
}

/**
 * Creates the pair's conversation and both participant rows; a racing creator finds the same one. On
 * PostgreSQL the conversation and its rows are one statement (a writing CTE); a racing creator's insert
 * does nothing there, and the rows are then added to the conversation it made.
 */
export async function createConversation(trx: Q, siteId: string, starter: number, partner: number, now: number): Promise<{ id: number }> {
  const [low, high] = starter < partner ? [starter, partner] : [partner, starter];
  const postgres = onPostgres(trx);
  const inserted = postgres
    ? (await insertConversationWithParticipants(trx, siteId, low, high, starter, partner, now)).rows[0]
    : (await insertConversation(trx, siteId, low, high, starter, now)).rows[0];
  if (inserted && postgres) return inserted;
  // A racing creator's row when this insert did nothing.
  const conversation = inserted ?? (await findConversationOfPair(trx, low, high));
  if (!conversation) throw new Error('conversation vanished');
  await insertParticipants(trx, conversation.id, starter, partner, now);
  return { id: conversation.id };
}
// Prepared once (src/server/db/database.ts): a chat send runs them.
const insertConversationQuery = (trx: Q, siteId: string, low: number, high: number, starter: number, now: number) => trx
  .insertInto('conversations')
  .values({ site_id: siteId, profile_low_id: low, profile_high_id: high, starter_profile_id: starter, created_at: now })
  .onConflict((oc) => oc.columns(['profile_low_id', 'profile_high_id']).doNothing())
  .returning('id');
const insertConversation = preparedQuery(insertConversationQuery, ['\u0000site', -710001, -710002, -710003, -710004]);
// The starter sees the chat at once; the partner once a message arrives.
const participantRows = (conversationId: number, starter: number, partner: number, now: number) => [
  { conversation_id: conversationId, profile_id: starter, partner_profile_id: partner, last_message_at: now, hidden: 0, unread_count: 0, cleared_message_id: 0, last_message_id: 0 },
  { conversation_id: conversationId, profile_id: partner, partner_profile_id: starter, last_message_at: now, hidden: 1, unread_count: 0, cleared_message_id: 0, last_message_id: 0 },
];
const insertParticipants = preparedQuery((trx, conversationId: number, starter: number, partner: number, now: number) => trx
  .insertInto('chat_participants')
  .values(participantRows(conversationId, starter, partner, now))
  .onConflict((oc) => oc.columns(['profile_id', 'conversation_id']).doNothing()), [-710011, -710012, -710013, -710014]);
const insertConversationWithParticipants = preparedQuery((trx, siteId: string, low: number, high: number, starter: number, partner: number, now: number) => trx
  .with('made', (w) => insertConversationQuery(w as Q, siteId, low, high, starter, now))
  .with('rows', (w) => w.insertInto('chat_participants')
    .columns(['conversation_id', 'profile_id', 'partner_profile_id', 'last_message_at', 'hidden', 'unread_count', 'cleared_message_id', 'last_message_id'])
    .expression((eb) => {
      // The same two rows as participantRows, with the id of the conversation just made.
      const [first, second] = participantRows(0, starter, partner, now).map((row) => eb.selectFrom('made').select((x) => [
        'made.id as conversation_id',
        x.cast<number>(x.val(row.profile_id), 'integer').as('profile_id'),
        x.cast<number>(x.val(row.partner_profile_id), 'integer').as('partner_profile_id'),
        x.cast<number>(x.val(row.last_message_at), 'bigint').as('last_message_at'),
        x.lit(row.hidden).as('hidden'), x.lit(row.unread_count).as('unread_count'), x.lit(row.cleared_message_id).as('cleared_message_id'),
        x.lit(row.last_message_id).as('last_message_id'),
      ]));
      return first!.unionAll(second!);
    }))
  .selectFrom('made')
  .select('made.id'), ['\u0000site', -710021, -710022, -710023, -710024, -710025]);

/** Conversations a member started (the free-member limit counts these). */
export async function countStartedConversations(db: Q, profileId: number): Promise<number> {
  const row = await db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).where('starter_profile_id', '=', profileId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Text messages a member sent for free (the site's free_messages count these). */
export async function countFreeTexts(db: Q, profileId: number): Promise<number> {
  const row = await db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sender_profile_id', '=', profileId).where('kind', '=', 'text').where('credits', '=', 0).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findMessageByClientId(db: Q, senderProfileId: number, clientId: string) {
  return db.selectFrom('messages').selectAll().where('sender_profile_id', '=', senderProfileId).where('client_id', '=', clientId).executeTakeFirst();
}

/** A page of a conversation, newest first from the database, returned oldest first. */
export async function listMessages(db: Q, conversationId: number, afterId: number, beforeId: number | undefined, limit: number) {
  let q = db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId).where('id', '>', afterId);
  if (beforeId !== undefined) q = q.where('id', '<', beforeId);
  const rows = await q.orderBy('id', 'desc').limit(limit + 1).execute();
  return { rows: rows.slice(0, limit).reverse(), hasMore: rows.length > limit };
}

/** Whether the profile ever wrote in this conversation (invisible members may be answered). */
export async function hasWritten(db: Q, conversationId: number, profileId: number) {
  return Boolean(await db.selectFrom('messages').select('id').where('conversation_id', '=', conversationId).where('sender_profile_id', '=', profileId).limit(1).executeTakeFirst());
}

/** The unread badge of a profile (its id, or a reference to one in an outer query): over its visible chats. */
export function unreadQuery(db: Q, profileId: number | Expression<number>) {
  return db
    .selectFrom('chat_participants')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('unread_count'), eb.lit(0)).as('n'))
    .where('profile_id', '=', profileId)
    .where('hidden', '=', 0);
}
/** The new-likes badge of a profile (its id, or a reference to one in an outer query). */
export function newLikesQuery(db: Q, profileId: number | Expression<number>) {
  return db.selectFrom('likes').select((eb) => eb.fn.countAll<number>().as('n')).where('liked_profile_id', '=', profileId).where('is_new', '=', 1);
}

/** Total unread messages of a member over their visible chats (nav badge, title, app badge). */
export async function unreadTotal(db: Q, profileId: number): Promise<number> {
  return Number((await unreadQuery(db, profileId).executeTakeFirstOrThrow()).n);
}

/** The unread totals of two profiles in one query. */
export async function unreadTotals(db: Q, a: number, b: number): Promise<[number, number]> {
  const row = (await unreadTotalsQuery(db, a, b)).rows[0];
  return [Number(row?.a ?? 0), Number(row?.b ?? 0)];
}
const unreadTotalsQuery = preparedQuery((db, a: number, b: number) => db.selectNoFrom([unreadQuery(db, a).as('a'), unreadQuery(db, b).as('b')]), [-710021, -710022]);

/**
 * A new message in a conversation: both sides' rows show it (visible again, the recipient's unread count
 * one up), and both members' unread totals after it, as the message's events carry them.
 *
 * Both rows in one statement, by the primary key (profile_id, conversation_id) — by conversation alone it
 * would read every row. One statement locks the two rows in one order whoever sends (the same plan for
 * both; the index scan takes the profile ids sorted), so two members writing to each other at the same
 * moment queue instead of deadlocking (tests/api/chat.test.ts). On PostgreSQL the totals come from the same
 * statement: the other chats' counts as they were, plus the two rows as the update left them.
 */
export async function markBothSides(trx: Q, messageId: number, now: number, conversationId: number, own: number, partner: number): Promise<[number, number]> {
  if (onPostgres(trx)) {
    const row = (await markAndCountQuery(trx, messageId, now, conversationId, own, partner)).rows[0];
    return [Number(row?.a ?? 0), Number(row?.b ?? 0)];
  }
  await markQuery(trx, messageId, now, conversationId, own, partner);
  return unreadTotals(trx, own, partner);
}
const markBoth = (db: Q, messageId: number, now: number, conversationId: number, own: number, partner: number) => db
  .updateTable('chat_participants')
  .set((eb) => ({ hidden: 0, last_message_id: messageId, last_message_at: now, unread_count: eb('unread_count', '+', eb.case().when('profile_id', '=', partner).then(1).else(0).end()) }))
  .where('conversation_id', '=', conversationId)
  .where('profile_id', 'in', [own, partner]);
const MARK_PLACEHOLDERS: [number, number, number, number, number] = [-730011, -730012, -730013, -730014, -730015];
const markQuery = preparedQuery(markBoth, MARK_PLACEHOLDERS);
const markAndCountQuery = preparedQuery((db, messageId: number, now: number, conversationId: number, own: number, partner: number) => db
  .with('marked', (w) => markBoth(w as Q, messageId, now, conversationId, own, partner).returning(['profile_id', 'unread_count']))
  .selectNoFrom((eb) => {
    // The badge's own rule over the member's other chats, plus this chat's row as the update left it.
    const total = (profileId: number) => eb(
      unreadQuery(db as Q, profileId).where('conversation_id', '!=', conversationId),
      '+',
      eb.fn.coalesce(eb.selectFrom('marked').select('marked.unread_count').where('marked.profile_id', '=', profileId), eb.lit(0)),
    );
    return [total(own).as('a'), total(partner).as('b')];
  }), MARK_PLACEHOLDERS);

/** Received likes not yet looked at. */
export async function newLikesTotal(db: Q, profileId: number): Promise<number> {
  return Number((await newLikesQuery(db, profileId).executeTakeFirstOrThrow()).n);
}

const badgeTotalsRow = hotQuery<[number], { unread_messages: unknown; new_likes: unknown }>(
  (db, profileId) => db.selectNoFrom([unreadQuery(db, profileId).as('unread_messages'), newLikesQuery(db, profileId).as('new_likes')]),
  [-434343],
);

/** Both badge totals in one query (every GET /api/user.php and page render needs them). */
export async function badgeTotals(db: Kysely<Database>, profileId: number): Promise<{ unread_messages: number; new_likes: number }> {
  const row = await badgeTotalsRow(db, profileId);
  return { unread_messages: Number(row?.unread_messages ?? 0), new_likes: Number(row?.new_likes ?? 0) };
}

/** The message as the client sees it; image files are served through the access-checked endpoint. */
export function toChatMessage(m: Message): ChatMessage {
  const image = m.image ? (JSON.parse(m.image) as { width: number; height: number; safety?: ImageSafety }) : null;
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    sender_profile_id: m.sender_profile_id,
    kind: m.kind,
    text: m.body,
    gift: m.gift,
    image: image
      // Images sent before the explicit-image check have no state: they were delivered unblurred.
      ? { thumb: `/api/chat-image.php?message=${m.id}&size=thumb`, full: `/api/chat-image.php?message=${m.id}`, width: image.width, height: image.height, safety: image.safety ?? 'ok' }
      : null,
    created_at: m.created_at,
  };
}
