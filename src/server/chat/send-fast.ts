import type SQLite from 'better-sqlite3';
import type { SendMessageInput, SendMessageResponse } from '../../shared/chat.contract';
import { GIFTS } from '../../shared/gifts';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import type { WriteWatch } from '../db/database';
import type { Message, User } from '../db/schema';
import type { BusEvent } from '../events/bus';
import { announceByMail } from '../notifications/notifications.service';
import { rememberOwnProfile } from '../profiles/own-profile';
import { noticeReach, toChatMessage } from './chat.repository';
import { textMessageCredits } from './message-price';
import { SPAM_WINDOW_MS } from '../../shared/safety.contract';
import { plainText, screenText, spamVerdict } from '../safety/safety.service';

/**
 * A text or gift sent on SQLite with a handful of statements prepared once (chat.service.ts
 * `sendMessage` builds about 22 queries with Kysely for the same work). The rules are the same and
 * in the same order; every refusal — and anything this path does not take — is `null`, and the
 * caller then hands the request to the Hono route, which refuses it translated (the route runs
 * `sendMessage` from the start, so nothing here may have written or counted before a `null`).
 *
 * 1. One `BEGIN IMMEDIATE` transaction, synchronous, holding SQLite's write lock, for every send
 *    that became ready in the same turn of the event loop (one commit for all: a lone send's commit
 *    cost as much as all its statements), each send in its own savepoint: the member's own profile,
 *    a repeated client_id (answered from the stored message, as `sendMessage` does), every rule, then
 *    the message_minute abuse limit is counted — in this transaction, on the limiter's own row of
 *    `rate_limits` with the library's own upsert (`AbuseLimits.inTransaction`), so the Hono route and
 *    this path share one counter — then the conversation, message, charge (guarded
 *    `credits + delta >= 0` update and ledger row, as `applyCredits`), both participant rows and both
 *    members' events are written. A refusal, the limit included, rolls its savepoint back (nothing
 *    counted) and is `null`: the route then counts the limit once and refuses, as it would alone.
 * 2. After the commit, as `sendMessage`: the events are published, push and mail notices started.
 *
 * Where the limit's counts live elsewhere (`REDIS_URL`), the rules are checked first outside any
 * transaction, the limit is counted through the limiter, then step 1 runs without counting it.
 */

type Row<T> = T | undefined;
interface Own { id: number; status: string; name: string; country: string }
interface Partner { id: number; name: string; status: string; invisible: number; fictional: number; user_id: number | null; user_status: string | null }
interface Participant { conversation_id: number; partner_profile_id: number }

interface Statements {
  begin: SQLite.Statement;
  commit: SQLite.Statement;
  rollback: SQLite.Statement;
  savepoint: SQLite.Statement;
  release: SQLite.Statement;
  rollbackTo: SQLite.Statement;
  own: SQLite.Statement<[number], Own>;
  byClientId: SQLite.Statement<[number, string], Message>;
  participant: SQLite.Statement<[number, number], Participant>;
  pair: SQLite.Statement<[number, number], { id: number }>;
  partner: SQLite.Statement<[number, string], Partner>;
  blocks: SQLite.Statement<[number, number, number, number], { blocker_profile_id: number }>;
  hasWritten: SQLite.Statement<[number, number], { id: number }>;
  freeTexts: SQLite.Statement<[number], { n: number }>;
  started: SQLite.Statement<[number], { n: number }>;
  credits: SQLite.Statement<[number], { credits: number }>;
  insertConversation: SQLite.Statement<[string, number, number, number, number]>;
  insertParticipants: SQLite.Statement<[number, number, number, number, number, number, number, number]>;
  insertFreshParticipants: SQLite.Statement<[number, number, number, number, number, number, number, number, number, number]>;
  insertMessage: SQLite.Statement<[number, number, string, string | null, string | null, number, string, number]>;
  ledgerDone: SQLite.Statement<[number, string], { id: number }>;
  charge: SQLite.Statement<[number, number, number]>;
  ledger: SQLite.Statement<[number, number, string, string, number, number]>;
  touchOwnSide: SQLite.Statement<[number, number, number, number]>;
  touchPartnerSide: SQLite.Statement<[number, number, number, number]>;
  unread: SQLite.Statement<[number], { n: number }>;
  insertEvent: SQLite.Statement<[number, string, string, number]>;
  recentFingerprints: SQLite.Statement<[number, number], { recipient_profile_id: number; fingerprint: string }>;
  heldFingerprints: SQLite.Statement<[number], { fingerprint: string | null }>;
  insertFingerprint: SQLite.Statement<[number, number, string, number]>;
}

const statementsByHandle = new WeakMap<SQLite.Database, Statements>();

function statementsOf(sqlite: SQLite.Database): Statements {
  let st = statementsByHandle.get(sqlite);
  if (st) return st;
  const p = <T extends unknown[] = unknown[], R = unknown>(source: string) => sqlite.prepare<T, R>(source);
  st = {
    begin: p('begin immediate'),
    commit: p('commit'),
    rollback: p('rollback'),
    savepoint: p('savepoint send_fast'),
    release: p('release send_fast'),
    rollbackTo: p('rollback to send_fast'),
    own: p('select id, status, name, country from profiles where user_id = ?'),
    byClientId: p('select * from messages where sender_profile_id = ? and client_id = ?'),
    participant: p('select conversation_id, partner_profile_id from chat_participants where conversation_id = ? and profile_id = ?'),
    pair: p('select id from conversations where profile_low_id = ? and profile_high_id = ?'),
    partner: p(`select profiles.id, profiles.name, profiles.status, profiles.invisible, profiles.fictional, profiles.user_id, users.status as user_status
      from profiles left join users on users.id = profiles.user_id where profiles.id = ? and profiles.site_id = ?`),
    blocks: p(`select blocker_profile_id from blocks
      where (blocker_profile_id = ? and blocked_profile_id = ?) or (blocker_profile_id = ? and blocked_profile_id = ?)`),
    hasWritten: p('select id from messages where conversation_id = ? and sender_profile_id = ? limit 1'),
    freeTexts: p(`select count(*) as n from messages where sender_profile_id = ? and kind = 'text' and credits = 0`),
    started: p('select count(*) as n from conversations where starter_profile_id = ?'),
    credits: p('select credits from users where id = ?'),
    insertConversation: p(`insert into conversations (site_id, profile_low_id, profile_high_id, starter_profile_id, created_at) values (?, ?, ?, ?, ?)
      on conflict (profile_low_id, profile_high_id) do nothing`),
    insertParticipants: p(`insert into chat_participants
      (conversation_id, profile_id, partner_profile_id, last_message_at, hidden, unread_count, cleared_message_id, last_message_id)
      values (?, ?, ?, ?, 0, 0, 0, 0), (?, ?, ?, ?, 1, 0, 0, 0) on conflict (profile_id, conversation_id) do nothing`),
    insertFreshParticipants: p(`insert into chat_participants
      (conversation_id, profile_id, partner_profile_id, last_message_at, hidden, unread_count, cleared_message_id, last_message_id)
      values (?, ?, ?, ?, 0, 0, 0, ?), (?, ?, ?, ?, 0, 1, 0, ?)`),
    insertMessage: p(`insert into messages (conversation_id, sender_profile_id, kind, body, gift, image, credits, client_id, created_at)
      values (?, ?, ?, ?, ?, null, ?, ?, ?)`),
    ledgerDone: p('select id from credit_ledger where user_id = ? and idempotency_key = ?'),
    charge: p('update users set credits = credits + ? where id = ? and credits + ? >= 0'),
    ledger: p('insert into credit_ledger (user_id, delta, reason, idempotency_key, balance_after, created_at) values (?, ?, ?, ?, ?, ?)'),
    touchOwnSide: p(`update chat_participants set hidden = 0, last_message_id = ?, last_message_at = ?, unread_count = unread_count
      where conversation_id = ? and profile_id = ?`),
    touchPartnerSide: p(`update chat_participants set hidden = 0, last_message_id = ?, last_message_at = ?, unread_count = unread_count + 1
      where conversation_id = ? and profile_id = ?`),
    unread: p('select coalesce(sum(unread_count), 0) as n from chat_participants where profile_id = ? and hidden = 0'),
    insertEvent: p('insert into events (user_id, type, data, created_at) values (?, ?, ?, ?)'),
    // safety.service.ts spamFacts and recordTextSignals (issue 26).
    recentFingerprints: p('select recipient_profile_id, fingerprint from message_fingerprints where sender_profile_id = ? and created_at > ?'),
    heldFingerprints: p(`select fingerprint from safety_signals where user_id = ? and kind = 'spam' and status = 'open'`),
    insertFingerprint: p('insert into message_fingerprints (sender_profile_id, recipient_profile_id, fingerprint, created_at) values (?, ?, ?, ?)'),
  };
  statementsByHandle.set(sqlite, st);
  return st;
}

/** What one send will do once the rules passed. */
interface Plan {
  own: Own;
  partner: Partner;
  conversationId: number | null;
  body: string | null;
  gift: string | null;
  price: number;
  reason: 'message' | 'gift';
  /** The text's spam fingerprint (safety.service.ts), stored with the send. */
  fingerprint: string | null;
}

type Checked = { repeat: Message; credits: number } | { plan: Plan } | null;

/** Every rule of `sendMessage` for a text or gift, in its order; null where it would refuse. */
function check(st: Statements, app: AppContext, site: Site, user: User, input: SendMessageInput): Checked {
  const own = st.own.get(user.id);
  if (!own || own.status === 'deleted') return null;
  const repeat = st.byClientId.get(own.id, input.client_id);
  if (repeat) return { repeat, credits: creditsOf(st, user.id) };

  let conversationId: number | null;
  let partnerId: number;
  if (input.conversation !== undefined) {
    const participant = st.participant.get(input.conversation, own.id);
    if (!participant) return null;
    conversationId = participant.conversation_id;
    partnerId = participant.partner_profile_id;
  } else {
    partnerId = input.profile_id as number;
    if (partnerId === own.id) return null;
    conversationId = st.pair.get(Math.min(own.id, partnerId), Math.max(own.id, partnerId))?.id ?? null;
  }
  const partner = st.partner.get(partnerId, site.id);
  if (!partner || partner.status === 'deleted') return null;
  // Blocks both ways, an unconfirmed partner, an unavailable or invisible one (chat.service.ts sendBlockReason).
  if (st.blocks.get(own.id, partner.id, partner.id, own.id)) return null;
  if (partner.user_id !== null && partner.user_status === 'not_confirmed') return null;
  if (partner.status !== 'active') return null;
  if (partner.invisible === 1 && !(conversationId !== null && st.hasWritten.get(conversationId, partner.id))) return null;

  let body: string | null = null;
  let gift: string | null = null;
  let price: number;
  let reason: Plan['reason'];
  let fingerprint: string | null = null;
  if (input.kind === 'text') {
    body = (input.text ?? '').trim();
    if (!body || body.length > site.message_length) return null;
    // The safety check (issue 26): a text it finds anything in (a flag, spam) is sendMessage's.
    const screen = screenText(body, user.language);
    const facts = screen.fingerprint === null ? { recent: [], held: [] }
      : { recent: st.recentFingerprints.all(own.id, app.clock.now() - SPAM_WINDOW_MS), held: st.heldFingerprints.all(user.id) };
    if (!plainText(screen, spamVerdict(screen.fingerprint, partner.id, facts))) return null;
    fingerprint = screen.fingerprint;
    price = textMessageCredits(site, user, {
      credits: creditsOf(st, user.id), freeTexts: !user.paid_user && site.free_messages > 0 ? st.freeTexts.get(own.id)!.n : 0,
    });
    reason = 'message';
  } else if (input.kind === 'gift') {
    const item = GIFTS.find((g) => g.id === input.gift);
    if (!item) return null;
    gift = item.id;
    price = site.gift_credits * item.factor;
    reason = 'gift';
  } else {
    return null;
  }
  if (conversationId === null && !user.paid_user && st.started.get(own.id)!.n >= site.free_conversations) return null;
  if (creditsOf(st, user.id) < price) return null;
  return { plan: { own, partner, conversationId, body, gift, price, reason, fingerprint } };
}

function creditsOf(st: Statements, userId: number): number {
  return (st.credits.get(userId) as Row<{ credits: number }>)?.credits ?? 0;
}

/**
 * Tables this path writes, counted for the caches that watch tables (database.ts). The session cache's
 * generation is left alone: what a send changes of a session (the sender's credits, both sides'
 * unread badge) is patched into the cached sessions of those two members instead (`patchSessions`).
 */
const WRITTEN = ['conversations', 'chat_participants', 'messages', 'users', 'credit_ledger', 'events', 'rate_limits', 'message_fingerprints'];
function noteWrites(watch: WriteWatch) {
  for (const table of WRITTEN) watch.tables.set(table, (watch.tables.get(table) ?? 0) + 1);
}

/** Each member's unread badge after the send: the sender first, then the partner's member (when a member). */
type Unread = { userId: number; unread: number }[];

interface Written { message: Message; credits: number; events: BusEvent[]; plan: Plan; unread: Unread }
type Outcome = Written | { repeat: Message; credits: number } | null;

/** Step 1 for one send, inside the batch's transaction: the rules, the limit, then every write; null when one refuses. */
function writeOne(st: Statements, app: AppContext, { site, user, input, count }: Pending): Outcome {
  const checked = check(st, app, site, user, input);
  if (!checked || 'repeat' in checked) return checked;
  // As sendMessage: a repeat is not counted; past the limit the route counts the request and answers 429.
  if (count && !count(String(user.id))) return null;
  const { plan } = checked;
  const own = plan.own.id;
  const partner = plan.partner.id;
  const now = app.clock.now();
  let conversationId = plan.conversationId;
  /** A conversation made by this send: its participant rows are written once the message exists, as they end up. */
  let fresh = false;
  if (conversationId === null) {
    // chat.repository.ts createConversation: a pair has one conversation; the partner sees it once a message arrives.
    const [low, high] = own < partner ? [own, partner] : [partner, own];
    const created = st.insertConversation.run(site.id, low, high, own, now);
    if (created.changes === 1) {
      conversationId = Number(created.lastInsertRowid);
      fresh = true;
    } else {
      const conversation = st.pair.get(low, high);
      if (!conversation) throw new Error('conversation vanished');
      conversationId = conversation.id;
      st.insertParticipants.run(conversationId, own, partner, now, conversationId, partner, own, now);
    }
  }
  // RETURNING costs SQLite a temporary table per statement: the row is built from what was inserted.
  const inserted = st.insertMessage.run(conversationId, own, input.kind, plan.body, plan.gift, plan.price, input.client_id, now);
  const message: Message = {
    id: Number(inserted.lastInsertRowid), conversation_id: conversationId, sender_profile_id: own, kind: input.kind, body: plan.body, gift: plan.gift,
    image: null, credits: plan.price, client_id: input.client_id, created_at: now, operator_user_id: null,
  };
  let balance: number | null = null;
  if (plan.price > 0) {
    // ledger.ts applyCredits: once per key, and only while the balance stays ≥ 0.
    const key = `message:${message.id}`;
    if (!st.ledgerDone.get(user.id, key)) {
      if (st.charge.run(-plan.price, user.id, -plan.price).changes !== 1) return null;
      const updated = { credits: creditsOf(st, user.id) };
      st.ledger.run(user.id, -plan.price, plan.reason, key, updated.credits, now);
      balance = updated.credits;
    }
  }
  if (fresh) {
    // The rows createConversation inserts, as the updates below leave them (one statement instead of three).
    st.insertFreshParticipants.run(conversationId, own, partner, now, message.id, conversationId, partner, own, now, message.id);
  } else {
    // Both sides' rows, the lower profile id first (as sendMessage).
    for (const side of [own, partner].sort((a, b) => a - b)) {
      (side === own ? st.touchOwnSide : st.touchPartnerSide).run(message.id, now, conversationId, side);
    }
  }
  if (plan.fingerprint !== null) st.insertFingerprint.run(own, partner, plan.fingerprint, now);
  const chatMessage = toChatMessage(message);
  const entries = [{ userId: user.id, profileId: own }];
  if (plan.partner.user_id !== null) entries.push({ userId: plan.partner.user_id, profileId: partner });
  // events.service.ts recordEvents: the same payloads, in the same order.
  const unread: Unread = entries.map(({ userId, profileId }) => ({ userId, unread: Number(st.unread.get(profileId)!.n) }));
  const events: BusEvent[] = unread.map(({ userId, unread: n }) => {
    const data = JSON.stringify({ type: 'message', message: chatMessage, unread_messages: n });
    return { userId, id: Number(st.insertEvent.run(userId, 'message', data, now).lastInsertRowid), type: 'message', data };
  });
  return { message, credits: balance ?? creditsOf(st, user.id), events, plan, unread };
}

/**
 * Right after the commit, before anything else runs: the cached sessions of both members as the send
 * left them (the sender's credits; each side's unread badge, when it was loaded; GET user.php's answer
 * rebuilt on next use). Nothing else of a session is written by a send.
 */
function patchSessions(app: AppContext, { credits, unread }: Written) {
  unread.forEach(({ userId, unread: n }, k) => {
    app.sessions.patch(userId, (member) => {
      const user = k === 0 ? Object.freeze({ ...member.user, credits }) : member.user;
      if (member.extras.profile) rememberOwnProfile(user, member.extras.profile.id);
      return { ...member, user, badges: member.badges && { ...member.badges, unread_messages: n }, answer: undefined };
    });
  });
}

interface Pending {
  site: Site;
  user: User;
  input: SendMessageInput;
  /** The message_minute limit counted in the batch's transaction; absent when it was counted before. */
  count?: (key: string) => boolean;
  done: (outcome: Outcome) => void;
  failed: (err: unknown) => void;
}

/** Most sends written in one transaction (one commit: most of a lone send's cost is its commit). */
const BATCH_MAX = 64;

/**
 * Step 1 for every send that became ready in the same turn of the event loop: one `BEGIN IMMEDIATE`
 * transaction, each send inside its own savepoint (a refusal or error rolls back that send only),
 * one commit for all. Answers are given only after the commit (and, by the caller, after `durable()`).
 */
function batcher(app: AppContext, st: Statements) {
  const queue: Pending[] = [];
  let scheduled = false;
  const flush = async () => {
    // While a checkpoint meant to restart the WAL runs, the batch waits (and grows): with no commit in
    // the meantime the checkpoint takes the whole WAL, and this batch's write starts it from the beginning.
    const checkpoint = app.db.raw.checkpoints?.running();
    if (checkpoint) await checkpoint;
    scheduled = false;
    const batch = queue.splice(0, BATCH_MAX);
    if (queue.length > 0) schedule();
    const outcomes: (Outcome | { error: unknown })[] = [];
    try {
      // Under Kysely's connection lock: no Kysely transaction is open meanwhile, and none opens.
      await app.db.db.connection().execute(async () => {
        st.begin.run();
        let committed = false;
        // The generation moves before and after the writes, as the write-watch plugin does for Kysely's.
        noteWrites(app.db.writes);
        try {
          for (const pending of batch) {
            st.savepoint.run();
            try {
              const outcome = writeOne(st, app, pending);
              // A refusal (or a repeat) keeps nothing of its own.
              if (!outcome || !('events' in outcome)) st.rollbackTo.run();
              st.release.run();
              outcomes.push(outcome);
            } catch (error) {
              st.rollbackTo.run();
              st.release.run();
              outcomes.push({ error });
            }
          }
          st.commit.run();
          committed = true;
          app.db.raw.commits?.committed();
          for (const outcome of outcomes) if (outcome && 'events' in outcome) patchSessions(app, outcome);
        } finally {
          if (!committed && app.db.raw.sqlite?.inTransaction) st.rollback.run();
          noteWrites(app.db.writes);
        }
      });
    } catch (err) {
      // Nothing of this batch was stored.
      for (const pending of batch) pending.failed(err);
      return;
    }
    batch.forEach((pending, k) => {
      const outcome = outcomes[k];
      if (outcome && 'error' in outcome) pending.failed(outcome.error);
      else pending.done(outcome);
    });
  };
  const schedule = () => {
    scheduled = true;
    setImmediate(() => void flush());
  };
  return (pending: Omit<Pending, 'done' | 'failed'>) =>
    new Promise<Outcome>((done, failed) => {
      queue.push({ ...pending, done, failed });
      if (!scheduled) schedule();
    });
}

const batchers = new WeakMap<Statements, ReturnType<typeof batcher>>();

/**
 * Sends a text or gift the fast way (SQLite only), or answers null: the caller must then hand the
 * request to the Hono route. Rejects only on an unexpected error before the commit (nothing stored).
 */
export async function sendMessageFast(app: AppContext, site: Site, user: User, input: SendMessageInput): Promise<SendMessageResponse | null> {
  const sqlite = app.db.raw.sqlite;
  if (!sqlite || !app.db.raw.commits) return null;
  const st = statementsOf(sqlite);
  let write = batchers.get(st);
  if (!write) {
    write = batcher(app, st);
    batchers.set(st, write);
  }

  const count = app.abuse.inTransaction?.('message_minute', sqlite);
  if (!count) {
    // The limit lives elsewhere (Redis): the rules first (outside a transaction every row read is
    // committed; while Kysely holds one open, wait for its end), so a refusal counts nothing here.
    const checked = sqlite.inTransaction ? await app.db.db.connection().execute(async () => check(st, app, site, user, input)) : check(st, app, site, user, input);
    if (!checked) return null;
    if ('repeat' in checked) return { message: toChatMessage(checked.repeat), conversation_id: checked.repeat.conversation_id, credits: checked.credits };
    try {
      await app.abuse.consume('message_minute', String(user.id));
    } catch {
      // Over the limit (or the limiter failed): the route counts again and answers it.
      return null;
    }
  }
  const written = await write({ site, user, input, count });
  if (!written) return null;
  if (!('events' in written)) return { message: toChatMessage(written.repeat), conversation_id: written.repeat.conversation_id, credits: written.credits };

  const { message, credits, events, plan, unread } = written;
  // Other processes drop both members' cached sessions; this one patched them after the commit.
  await app.bus.publish(events, { keep: { origin: app.sessions.id, users: unread.map((u) => u.userId) } });
  const partnerUserId = plan.partner.user_id;
  if (partnerUserId !== null) {
    const notice = plan.conversationId === null ? 'new_conversations' : 'new_messages';
    // Push and mail notices as sendMessage starts them, after the same lookup (committed rows only: while a
    // Kysely transaction is open, both services are started and decide themselves).
    const reach = sqlite.inTransaction ? { push: true, openTab: false } : await noticeReach(app.db.db, partnerUserId, app.clock.now());
    if (reach.push) {
      app.push.notify(partnerUserId, notice, (t) => ({
        title: t('push.message_title', { name: plan.own.name }),
        body: t('push.message_body'),
        url: `/chats/${message.conversation_id}`,
        tag: `chat-${message.conversation_id}`,
      }));
    }
    if (!reach.openTab) await announceByMail(app, partnerUserId, notice, plan.own.name);
  }
  return { message: toChatMessage(message), conversation_id: message.conversation_id, credits };
}
