import { type Expression, type ExpressionBuilder, type Kysely, sql, type Transaction } from 'kysely';
import { hotQuery, onPostgres, preparedQuery, preparedWrite } from '../db/database';
import type { ChatEvent, ChatMessage, ImageSafety } from '../../shared/chat.contract';
import type { CreditLedgerTable, Database, Message } from '../db/schema';
import { InsufficientCreditsError, applyCredits, chargeCte, ledgerRowFromCharge } from '../credits/ledger';
import { eventsWritten, recordEvents } from '../events/events.service';
import type { BusEvent } from '../events/bus';

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
 * Creates the pair's conversation and both participant rows (SQLite's part of `writeMessage`; PostgreSQL
 * makes them in the message's statement); a racing creator's conversation is used instead.
 */
async function createConversation(trx: Q, members: readonly number[], siteId: string, starter: number, partner: number, now: number): Promise<{ id: number }> {
  const [low, high] = starter < partner ? [starter, partner] : [partner, starter];
  const conversation = (await insertConversation(trx, siteId, low, high, starter, now)).rows[0] ?? (await findConversationOfPair(trx, low, high));
  if (!conversation) throw new Error('conversation vanished');
  await insertParticipants(trx, members, conversation.id, starter, partner, now);
  return { id: conversation.id };
}
const insertConversation = preparedQuery((trx, siteId: string, low: number, high: number, starter: number, now: number) => trx
  .insertInto('conversations')
  .values({ site_id: siteId, profile_low_id: low, profile_high_id: high, starter_profile_id: starter, created_at: now })
  .onConflict((oc) => oc.columns(['profile_low_id', 'profile_high_id']).doNothing())
  .returning('id'), ['\u0000site', -710001, -710002, -710003, -710004]);
// The starter sees the chat at once; the partner once a message arrives (writeMessage marks both right after).
const insertParticipants = preparedWrite((trx, conversationId: number, starter: number, partner: number, now: number) => trx
  .insertInto('chat_participants')
  .values([
    { conversation_id: conversationId, profile_id: starter, partner_profile_id: partner, last_message_at: now, hidden: 0, unread_count: 0, cleared_message_id: 0, last_message_id: 0 },
    { conversation_id: conversationId, profile_id: partner, partner_profile_id: starter, last_message_at: now, hidden: 1, unread_count: 0, cleared_message_id: 0, last_message_id: 0 },
  ])
  .onConflict((oc) => oc.columns(['profile_id', 'conversation_id']).doNothing()), [-710011, -710012, -710013, -710014]);

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

/** A message to write, with everything that goes with it (`writeMessage`). */
export interface MessageWrite {
  /** PostgreSQL: the id taken from the messages' sequence beforehand (`sendFacts`); SQLite: null (given at insert). */
  id: number | null;
  /** The conversation, or null for the pair's first message: the conversation is made with it (or found, when the other side just made it). */
  conversationId: number | null;
  siteId: string;
  own: number;
  partner: number;
  userId: number;
  /** The partner's account; null for a profile without one (no event is written for it). */
  partnerUserId: number | null;
  kind: Message['kind'];
  body: string | null;
  gift: string | null;
  image: string | null;
  /** Credits it costs: charged with its ledger row when more than 0. */
  price: number;
  reason: CreditLedgerTable['reason'];
  clientId: string;
  now: number;
  /** The text's spam fingerprint, kept for the spam window (src/server/safety/fingerprint.ts). */
  fingerprint: string | null;
  /** The recipient's copy of the message (it may carry flags the sender's never has). */
  recipientCopy: (message: ChatMessage) => ChatMessage;
}

/**
 * Writes a message and all that comes with it, all or nothing: for a first message the conversation and
 * both sides' rows; the message; its charge and ledger row; its fingerprint; both sides' rows showing it
 * (visible, the recipient's unread count one up); and a `message` event for each member with their unread
 * total after it. Throws InsufficientCreditsError, writing nothing, when the balance cannot pay the price.
 * Returns the sender's copy, the balance after and the events to publish once committed.
 *
 * PostgreSQL: one statement (writing CTEs, `messageStatement`), so one round trip, atomic without a
 * transaction of its own. The message id comes from the caller (`sendFacts` takes it from the sequence), so
 * the events' JSON is made here; the statement fills in the conversation id and the unread totals. SQLite:
 * the same writes one after another, in the caller's transaction or one of their own (a statement costs no
 * round trip there).
 */
export async function writeMessage(db: Q, w: MessageWrite): Promise<{ message: ChatMessage; credits: number; events: BusEvent[] }> {
  // Of the rows a session lookup reads, a message changes only its two members' (the balance, the chat rows):
  // other members' cached sessions stay (`preparedWrite`).
  const members = w.partnerUserId === null ? [w.userId] : [w.userId, w.partnerUserId];
  if (onPostgres(db)) {
    if (w.id === null) throw new Error('a message id from the sequence is needed on PostgreSQL');
    const draft = toChatMessage({
      id: w.id, conversation_id: CONVERSATION_HOLE, sender_profile_id: w.own, kind: w.kind, body: w.body, gift: w.gift, image: w.image,
      credits: w.price, client_id: w.clientId, created_at: w.now, operator_user_id: null,
    });
    const [ownBefore, ownBetween] = eventTemplate(draft);
    const [partnerBefore, partnerBetween] = eventTemplate(w.recipientCopy(draft));
    const [low, high] = w.own < w.partner ? [w.own, w.partner] : [w.partner, w.own];
    const statement = w.conversationId === null ? writeFirstMessage : writeInConversation;
    const returned = (await statement(
      db, members, w.id, w.conversationId ?? 0, w.siteId, low, high, w.own, w.partner, w.userId, w.partnerUserId, w.kind, w.body, w.gift, w.image, w.price, -w.price,
      w.reason, `message:${w.id}`, w.clientId, w.now, w.fingerprint, ownBefore, ownBetween, partnerBefore, partnerBetween,
    )).rows;
    const first = returned[0];
    if (!first) throw new InsufficientCreditsError();
    const conversation = Number(first.conversation_id);
    const rows = [{ user_id: w.userId, type: 'message', data: `${ownBefore}${conversation}${ownBetween}${Number(first.a)}}` }];
    if (w.partnerUserId !== null) rows.push({ user_id: w.partnerUserId, type: 'message', data: `${partnerBefore}${conversation}${partnerBetween}${Number(first.b)}}` });
    return { message: { ...draft, conversation_id: conversation }, credits: Number(first.credits), events: eventsWritten(rows, returned) };
  }
  const write = async (trx: Q) => {
    const conversationId = w.conversationId ?? (await createConversation(trx, members, w.siteId, w.own, w.partner, w.now)).id;
    const inserted = (await insertMessage(trx, conversationId, w.own, w.kind, w.body, w.gift, w.image, w.price, w.clientId, w.now)).rows[0] as Message;
    const balance = w.price > 0
      ? await applyCredits(trx, { userId: w.userId, delta: -w.price, reason: w.reason, key: `message:${inserted.id}`, now: w.now, newKey: true })
      : null;
    if (w.fingerprint !== null) await insertFingerprint(trx, w.own, w.partner, w.fingerprint, w.now);
    await markQuery(trx, members, inserted.id, w.now, conversationId, w.own, w.partner);
    const [ownUnread, partnerUnread] = await unreadTotals(trx, w.own, w.partner);
    const message = toChatMessage(inserted);
    const entries: { userId: number; event: ChatEvent }[] = [{ userId: w.userId, event: { type: 'message', message, unread_messages: ownUnread } }];
    if (w.partnerUserId !== null) entries.push({ userId: w.partnerUserId, event: { type: 'message', message: w.recipientCopy(message), unread_messages: partnerUnread } });
    const events = await recordEvents(trx, entries, w.now);
    return { message, credits: balance ?? (await creditsOf(trx, w.userId)), events };
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}

/** Stands for the conversation id in a message event's JSON until the statement knows it. */
const CONVERSATION_HOLE = 2_147_483_001;
const UNREAD_HOLE = 2_147_483_002;

/**
 * A message event's JSON cut around its two numbers the statement fills in: the conversation id and the
 * unread total, which comes last. `before + conversation + between + total + '}'` is what JSON.stringify
 * gives for the whole event. The cuts are found by key: inside a JSON string a quote is escaped, so
 * `"conversation_id":` unescaped can only be the key.
 */
function eventTemplate(message: ChatMessage): [string, string] {
  const whole = JSON.stringify({ type: 'message', message, unread_messages: UNREAD_HOLE } satisfies ChatEvent);
  const conversationKey = `"conversation_id":${CONVERSATION_HOLE}`;
  const at = whole.indexOf(conversationKey);
  const end = `"unread_messages":${UNREAD_HOLE}}`;
  if (at === -1 || !whole.endsWith(end)) throw new Error('a message event without its conversation id or unread total');
  const cut = at + conversationKey.length;
  return [whole.slice(0, cut - String(CONVERSATION_HOLE).length), whole.slice(cut, whole.length - `${UNREAD_HOLE}}`.length)];
}

/** The member's balance. */
export async function creditsOf(db: Q, userId: number): Promise<number> {
  return (await db.selectFrom('users').select('credits').where('id', '=', userId).executeTakeFirstOrThrow()).credits;
}

// The writes, prepared once (src/server/db/database.ts).
const insertMessage = preparedQuery((trx, conversationId: number, own: number, kind: Message['kind'], body: string | null, gift: string | null, image: string | null, credits: number, clientId: string, now: number) => trx
  .insertInto('messages')
  .values({ conversation_id: conversationId, sender_profile_id: own, kind, body, gift, image, credits, client_id: clientId, created_at: now })
  .returningAll(), [-730001, -730002, '\u0000kind' as Message['kind'], '\u0000body', '\u0000gift', '\u0000image', -730003, '\u0000client', -730004]);
const insertFingerprint = preparedQuery((trx, own: number, partner: number, fingerprint: string, now: number) => trx
  .insertInto('message_fingerprints')
  .values({ sender_profile_id: own, recipient_profile_id: partner, fingerprint, created_at: now }), [-730021, -730022, '\u0000print', -730023]);
/**
 * Both sides' rows show a new message, in one statement, by the primary key (profile_id, conversation_id) —
 * by conversation alone it would read every row. One statement locks the two rows in one order whoever
 * sends (the same plan for both; the index scan takes the profile ids sorted), so two members writing to
 * each other at the same moment queue instead of deadlocking (tests/api/chat.test.ts).
 */
const markBoth = (db: Q, messageId: number, now: number, conversationId: number, own: number, partner: number) => db
  .updateTable('chat_participants')
  .set((eb) => ({ hidden: 0, last_message_id: messageId, last_message_at: now, unread_count: eb('unread_count', '+', eb.case().when('profile_id', '=', partner).then(1).else(0).end()) }))
  .where('conversation_id', '=', conversationId)
  .where('profile_id', 'in', [own, partner]);
const markQuery = preparedWrite(markBoth, [-730011, -730012, -730013, -730014, -730015]);

type Eb = ExpressionBuilder<Database, never>;

/**
 * PostgreSQL's whole write as one statement; `first`: the pair's first message, which makes the conversation.
 * - `charged` takes the price; when the balance is too low it is empty, and then nothing else happens:
 *   every other part reads from it or from what reads from it.
 * - `made` (first message) the conversation. A racing creator's row is taken over by the no-op update
 *   (`on conflict … do update`), so its id comes back either way.
 * - `m` the message with its given id; `ledger` the charge's row when there is a price; `fp` the fingerprint.
 * - `marked` both sides' rows showing the message, locked in profile id order: for a first message inserted
 *   with that (or, after a racing creator, updated), otherwise updated (`markBoth`).
 * - `totals` both members' unread totals: the badge's own rule over their other chats, plus this chat's row
 *   as `marked` left it.
 * - `ev` the events, their JSON completed with the conversation id and the total.
 * One row per event comes back, with the conversation id, the balance and both totals; none when the
 * balance was too low.
 */
function messageStatement(first: boolean) {
  return preparedWrite((db, id: number, conversationId: number, siteId: string, low: number, high: number, own: number, partner: number, userId: number,
    partnerUserId: number | null, kind: Message['kind'], body: string | null, gift: string | null, image: string | null, price: number, delta: number,
    reason: CreditLedgerTable['reason'], key: string, clientId: string, now: number, fingerprint: string | null,
    ownBefore: string, ownBetween: string, partnerBefore: string, partnerBetween: string) => {
    const int = (x: Eb, value: number | null) => x.cast<number>(x.val(value), 'integer');
    const conversation = first ? sql<number>`(select made.id from made)` : sql<number>`${conversationId}::integer`;
    const total = (eb: Eb, profileId: number) => eb(
      unreadQuery(db as Q, profileId).where('conversation_id', '!=', conversation),
      '+',
      eb.fn.coalesce(sql<number>`(select marked.unread_count from marked where marked.profile_id = ${profileId})`, eb.lit(0)),
    );
    const eventRow = (x: Eb, member: number | null, before: string, between: string, unread: 'a' | 'b') => [
      int(x, member).as('user_id'),
      x.cast<string>(x.val('message'), 'varchar').as('type'),
      sql<string>`${before}::text || ${conversation} || ${between}::text || ${sql.ref(`totals.${unread}`)} || '}'`.as('data'),
      x.cast<number>(x.val(now), 'bigint').as('created_at'),
    ];
    // A first message's side rows: low's, then high's (the lock order), each with the message on it.
    const sideRow = (x: Eb, profile: number, other: number) => [
      sql<number>`(select made.id from made)`.as('conversation_id'),
      int(x, profile).as('profile_id'),
      int(x, other).as('partner_profile_id'),
      x.cast<number>(x.val(now), 'bigint').as('last_message_at'),
      x.lit(0).as('hidden'),
      sql<number>`case when ${profile}::integer = ${partner}::integer then 1 else 0 end`.as('unread_count'),
      x.lit(0).as('cleared_message_id'),
      int(x, id).as('last_message_id'),
    ];
    const charged = db.with('charged', (w) => chargeCte(w as Kysely<Database>, delta, userId));
    const withConversation = first
      ? charged.with('made', (w) => w.insertInto('conversations')
        .columns(['site_id', 'profile_low_id', 'profile_high_id', 'starter_profile_id', 'created_at'])
        .expression((eb) => eb.selectFrom('charged').select((x) => [
          x.cast<string>(x.val(siteId), 'varchar').as('site_id'), int(x as never, low).as('profile_low_id'), int(x as never, high).as('profile_high_id'),
          int(x as never, own).as('starter_profile_id'), x.cast<number>(x.val(now), 'bigint').as('created_at'),
        ]) as never)
        .onConflict((oc) => oc.columns(['profile_low_id', 'profile_high_id']).doUpdateSet((eb) => ({ profile_low_id: eb.ref('excluded.profile_low_id') })))
        .returning('id')) as unknown as typeof charged
      : charged;
    return withConversation
      .with('m', (w) => w.insertInto('messages')
        .columns(['id', 'conversation_id', 'sender_profile_id', 'kind', 'body', 'gift', 'image', 'credits', 'client_id', 'created_at'])
        .expression((eb) => eb.selectFrom('charged').select((x) => [
          int(x as never, id).as('id'),
          conversation.as('conversation_id'),
          int(x as never, own).as('sender_profile_id'),
          x.cast<string>(x.val(kind), 'varchar').as('kind'),
          x.cast<string>(x.val(body), 'text').as('body'),
          x.cast<string>(x.val(gift), 'varchar').as('gift'),
          x.cast<string>(x.val(image), 'text').as('image'),
          int(x as never, price).as('credits'),
          x.cast<string>(x.val(clientId), 'varchar').as('client_id'),
          x.cast<number>(x.val(now), 'bigint').as('created_at'),
        ]) as never)
        .returning('id'))
      .with('ledger', (w) => ledgerRowFromCharge(w as never, { userId, delta, reason, key, now, only: sql<boolean>`${delta}::integer < 0 and exists (select 1 from m)` }))
      .with('fp', (w) => w.insertInto('message_fingerprints')
        .columns(['sender_profile_id', 'recipient_profile_id', 'fingerprint', 'created_at'])
        .expression((eb) => eb.selectFrom('m').select((x) => [
          int(x as never, own).as('sender_profile_id'),
          int(x as never, partner).as('recipient_profile_id'),
          x.cast<string>(x.val(fingerprint), 'varchar').as('fingerprint'),
          x.cast<number>(x.val(now), 'bigint').as('created_at'),
        ]).where(sql<boolean>`${fingerprint}::varchar is not null`) as never))
      .with('marked', (w) => (first
        ? (w as unknown as Q).insertInto('chat_participants')
          .columns(['conversation_id', 'profile_id', 'partner_profile_id', 'last_message_at', 'hidden', 'unread_count', 'cleared_message_id', 'last_message_id'])
          .expression((eb) => {
            const sides = eb as unknown as ExpressionBuilder<Database & { m: { id: number } }, never>;
            return sides.selectFrom('m').select((x) => sideRow(x as never, low, high)).unionAll(sides.selectFrom('m').select((x) => sideRow(x as never, high, low))) as never;
          })
          .onConflict((oc) => oc.columns(['profile_id', 'conversation_id']).doUpdateSet((eb) => ({
            hidden: 0,
            last_message_id: eb.ref('excluded.last_message_id'),
            last_message_at: eb.ref('excluded.last_message_at'),
            unread_count: eb('chat_participants.unread_count', '+', eb.ref('excluded.unread_count')),
          })))
          .returning(['profile_id', 'unread_count'])
        : markBoth(w as unknown as Q, id, now, conversationId, own, partner).where(sql<boolean>`exists (select 1 from m)`).returning(['profile_id', 'unread_count'])) as never)
      .with('totals', (w) => w.selectFrom('m').select((eb) => [total(eb as never, own).as('a'), total(eb as never, partner).as('b')]))
      .with('ev', (w) => w.insertInto('events')
        .columns(['user_id', 'type', 'data', 'created_at'])
        .expression((eb) => eb.selectFrom('totals').select((x) => eventRow(x as never, userId, ownBefore, ownBetween, 'a'))
          .unionAll(eb.selectFrom('totals').select((x) => eventRow(x as never, partnerUserId, partnerBefore, partnerBetween, 'b'))
            .where(sql<boolean>`${partnerUserId}::integer is not null`)) as never)
        .returning(['id', 'user_id']))
      .selectFrom(['ev', 'charged', 'totals'])
      .select(['ev.id', 'ev.user_id', 'charged.credits', 'totals.a', 'totals.b', conversation.as('conversation_id')]);
  }, [-730101, -730102, '\u0000site', -730103, -730104, -730105, -730106, -730107, -730108, '\u0000kind' as Message['kind'], '\u0000body', '\u0000gift',
    '\u0000image', -730109, -730110, '\u0000reason' as CreditLedgerTable['reason'], '\u0000key', '\u0000client', -730111, '\u0000print',
    '\u0000ownBefore', '\u0000ownBetween', '\u0000partnerBefore', '\u0000partnerBetween']);
}
const writeInConversation = messageStatement(false);
const writeFirstMessage = messageStatement(true);

/** The unread totals of two profiles in one query. */
async function unreadTotals(db: Q, a: number, b: number): Promise<[number, number]> {
  const row = (await unreadTotalsQuery(db, a, b)).rows[0];
  return [Number(row?.a ?? 0), Number(row?.b ?? 0)];
}
const unreadTotalsQuery = preparedQuery((db, a: number, b: number) => db.selectNoFrom([unreadQuery(db, a).as('a'), unreadQuery(db, b).as('b')]), [-710021, -710022]);

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
