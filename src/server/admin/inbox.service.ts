import { sql } from 'kysely';
import { announceByMail } from '../notifications/notifications.service';
import type { FictionalProfileInput } from '../../shared/admin.contract';
import type { AppContext } from '../app-context';
import * as chatRepo from '../chat/chat.repository';
import { mainThumb } from '../photos/photos.repository';
import { recordEvents } from '../events/events.service';
import { type StaffCaller, StaffError, audit } from './staff.service';

const FICTIONAL_FIELDS = ['id', 'name', 'gender', 'sexuality', 'birth_date', 'country', 'city', 'about', 'status', 'created_at'] as const;

/** The site's fictional (operator-run) profiles. */
export function listFictional(app: AppContext, staff: StaffCaller) {
  return app.db.db.selectFrom('profiles').select(FICTIONAL_FIELDS)
    // The persona's face, so operators know whom they pick (its main photo, as members see it).
    .select((eb) => mainThumb(eb.ref('profiles.id')))
    .where('site_id', '=', staff.siteId).where('fictional', '=', 1)
    .where('status', '!=', 'deleted').orderBy('id', 'desc').limit(500).execute();
}

/** Creates or edits a fictional profile; it is always fictional (the site's icon and warning follow from that). */
export async function saveFictional(app: AppContext, staff: StaffCaller, input: FictionalProfileInput) {
  const db = app.db.db;
  const now = app.clock.now();
  const values = {
    name: input.name, gender: input.gender, sexuality: input.sexuality, birth_date: input.birth_date, country: input.country,
    city: input.city || null, about: input.about || null, status: input.status ?? 'active',
  };
  const age = (now - Date.parse(input.birth_date)) / (365.25 * 86_400_000);
  if (!(age >= 18 && age < 100)) throw new StaffError('invalid', 'admin.error.birth_date', 400, {}, { birth_date: 'admin.error.birth_date' });
  return db.transaction().execute(async (trx) => {
    if (input.id === undefined) {
      const row = await trx.insertInto('profiles').values({
        ...values, site_id: staff.siteId, user_id: null, region: null, hair_color: null, eye_color: null, body_type: null,
        relationship_status: null, tattoos: null, fictional: 1, invisible: 0, last_active_at: now, created_at: now,
      }).returning(FICTIONAL_FIELDS).executeTakeFirstOrThrow();
      await audit(trx, staff, now, { action: 'fictional_create', targetType: 'profile', targetId: row.id, after: values });
      return row;
    }
    const before = await trx.selectFrom('profiles').select(FICTIONAL_FIELDS).where('id', '=', input.id).where('site_id', '=', staff.siteId)
      .where('fictional', '=', 1).where('status', '!=', 'deleted').executeTakeFirst();
    if (!before) throw new StaffError('not_found', 'admin.error.profile_not_found', 404);
    const row = await trx.updateTable('profiles').set(values).where('id', '=', input.id).returning(FICTIONAL_FIELDS).executeTakeFirstOrThrow();
    await audit(trx, staff, now, { action: 'fictional_update', targetType: 'profile', targetId: row.id, before, after: values });
    return row;
  });
}

/**
 * Conversations with the site's fictional profiles that wait for an answer, longest waiting first.
 * Waiting since = the member's first message after the profile's last answer.
 */
export async function inboxQueue(app: AppContext, staff: StaffCaller) {
  const rows = await app.db.db
    .selectFrom('chat_participants as cp')
    .innerJoin('profiles as f', 'f.id', 'cp.profile_id')
    .innerJoin('profiles as m', 'm.id', 'cp.partner_profile_id')
    .innerJoin('conversations as c', 'c.id', 'cp.conversation_id')
    .leftJoin('operator_conversations as oc', (join) => join.onRef('oc.conversation_id', '=', 'cp.conversation_id').on('oc.claim_expires_at', '>', app.clock.now()))
    .leftJoin('users as holder', 'holder.id', 'oc.claimed_by')
    .select([
      'cp.conversation_id', 'cp.unread_count', 'f.id as fictional_id', 'f.name as fictional_name', 'm.id as member_profile_id', 'm.name as member_name',
      'oc.claimed_by', 'oc.claim_expires_at', 'holder.email as claimed_by_email',
      sql<number>`(select min(w.created_at) from messages w where w.conversation_id = cp.conversation_id and w.sender_profile_id = cp.partner_profile_id
        and w.id > coalesce((select max(a.id) from messages a where a.conversation_id = cp.conversation_id and a.sender_profile_id = cp.profile_id), 0))`.as('waiting_since'),
    ])
    .where('c.site_id', '=', staff.siteId)
    .where('f.fictional', '=', 1)
    .where('m.fictional', '=', 0)
    .where('m.status', '!=', 'deleted')
    .where('cp.unread_count', '>', 0)
    .orderBy('waiting_since', 'asc')
    .orderBy('cp.conversation_id', 'asc')
    .limit(200)
    .execute();
  return rows.filter((r) => r.waiting_since !== null).map((r) => ({
    ...r, waiting_since: Number(r.waiting_since), claim_expires_at: r.claim_expires_at === null ? null : Number(r.claim_expires_at),
  }));
}

/** How long an operator holds a conversation after opening it (renewed while the page stays open). */
export const CLAIM_MS = 5 * 60_000;

/**
 * Claims a conversation for this operator until now + CLAIM_MS, unless another operator holds an
 * unexpired claim on it: one atomic upsert, so of two operators opening it at once only one gets it.
 */
export async function claimConversation(app: AppContext, staff: StaffCaller, conversationId: number) {
  await fictionalSide(app, staff, conversationId);
  const db = app.db.db;
  const now = app.clock.now();
  const expires = now + CLAIM_MS;
  const won = await db.insertInto('operator_conversations')
    .values({ conversation_id: conversationId, site_id: staff.siteId, claimed_by: staff.userId, claim_expires_at: expires })
    .onConflict((oc) => oc.column('conversation_id')
      .doUpdateSet({ claimed_by: staff.userId, claim_expires_at: expires })
      .where((eb) => eb.or([
        eb('operator_conversations.claimed_by', 'is', null),
        eb('operator_conversations.claimed_by', '=', staff.userId),
        eb('operator_conversations.claim_expires_at', '<=', now),
      ])))
    .returning(['claimed_by', 'claim_expires_at'])
    .executeTakeFirst();
  if (won) return { mine: true as const, expires_at: Number(won.claim_expires_at) };
  const holder = await db.selectFrom('operator_conversations as oc').leftJoin('users as u', 'u.id', 'oc.claimed_by')
    .select(['oc.claimed_by', 'oc.claim_expires_at', 'u.email']).where('oc.conversation_id', '=', conversationId).executeTakeFirstOrThrow();
  return { mine: false as const, expires_at: Number(holder.claim_expires_at), holder: holder.email ?? `#${holder.claimed_by}` };
}

/** The member of a conversation of this site's fictional profiles (the "answer sent to …" line), or null. */
export async function memberOfConversation(app: AppContext, staff: StaffCaller, conversationId: number) {
  try {
    return (await fictionalSide(app, staff, conversationId)).member_name;
  } catch {
    return null;
  }
}

/** Gives a conversation back to the queue (the operator left it unanswered). */
export async function releaseConversation(app: AppContext, staff: StaffCaller, conversationId: number) {
  await fictionalSide(app, staff, conversationId);
  await app.db.db.updateTable('operator_conversations').set({ claimed_by: null, claim_expires_at: null })
    .where('conversation_id', '=', conversationId).where('claimed_by', '=', staff.userId).execute();
}

/** Saves the operators' notes about a conversation (shared by every operator of the site). */
export async function saveNotes(app: AppContext, staff: StaffCaller, conversationId: number, notes: string) {
  await fictionalSide(app, staff, conversationId);
  const now = app.clock.now();
  const text = notes.trim() || null;
  await app.db.db.insertInto('operator_conversations')
    .values({ conversation_id: conversationId, site_id: staff.siteId, notes: text, notes_by: staff.userId, notes_updated_at: now })
    .onConflict((oc) => oc.column('conversation_id').doUpdateSet({ notes: text, notes_by: staff.userId, notes_updated_at: now }))
    .execute();
  return { notes: text, updated_at: now };
}

/**
 * The next waiting conversation nobody else holds (the operator's own claims count as free), or null;
 * longest waiting first, but one of the same persona first when there is one (the operator stays in character).
 */
export async function nextWaiting(app: AppContext, staff: StaffCaller, except: number | null = null, persona: number | null = null) {
  const free = (await inboxQueue(app, staff)).filter((q) => q.conversation_id !== except && (q.claimed_by === null || q.claimed_by === staff.userId));
  return free.find((q) => q.fictional_id === persona) ?? free[0] ?? null;
}

/** The queue's size and its longest wait: for the inbox's heading. */
export function queueSummary(queue: Awaited<ReturnType<typeof inboxQueue>>, now: number) {
  return { waiting: queue.length, oldest_minutes: queue.length === 0 ? 0 : Math.max(1, Math.round((now - queue[0].waiting_since) / 60_000)) };
}

/** The conversation of a fictional profile of this site, as its operator may see it. */
async function fictionalSide(app: AppContext, staff: StaffCaller, conversationId: number) {
  const row = await app.db.db
    .selectFrom('chat_participants as cp')
    .innerJoin('profiles as f', 'f.id', 'cp.profile_id')
    .innerJoin('conversations as c', 'c.id', 'cp.conversation_id')
    .innerJoin('profiles as m', 'm.id', 'cp.partner_profile_id')
    .select(['cp.conversation_id', 'cp.profile_id', 'cp.partner_profile_id', 'm.user_id as member_user_id', 'm.status as member_status', 'f.name as fictional_name', 'm.name as member_name'])
    .where('cp.conversation_id', '=', conversationId)
    .where('c.site_id', '=', staff.siteId)
    .where('f.fictional', '=', 1)
    .where('m.fictional', '=', 0)
    .executeTakeFirst();
  if (!row) throw new StaffError('not_found', 'admin.error.conversation_not_found', 404);
  return row;
}

/**
 * What an operator sees: the two profiles and the messages (who wrote each answer). Never the
 * member's e-mail address, account or payments.
 */
export async function inboxConversation(app: AppContext, staff: StaffCaller, conversationId: number) {
  const db = app.db.db;
  const side = await fictionalSide(app, staff, conversationId);
  const profileFields = ['id', 'name', 'gender', 'birth_date', 'country', 'region', 'city', 'about', 'fictional'] as const;
  const profile = (id: number) => db.selectFrom('profiles').select(profileFields).select((eb) => mainThumb(eb.ref('profiles.id'), 'photo'))
    .where('id', '=', id).executeTakeFirstOrThrow();
  const [fictional, member] = await Promise.all([profile(side.profile_id), profile(side.partner_profile_id)]);
  const interests = (await db.selectFrom('profile_interests').select('interest').where('profile_id', '=', member.id).execute()).map((i) => i.interest);
  const [account, state, lines] = await Promise.all([
    // Credits left tell the operator how long the member can write on; never the e-mail address or payments.
    side.member_user_id === null ? undefined : db.selectFrom('users').select('credits').where('id', '=', side.member_user_id).executeTakeFirst(),
    db.selectFrom('operator_conversations').select(['notes', 'notes_updated_at']).where('conversation_id', '=', conversationId).executeTakeFirst(),
    // The persona's earlier lines (any conversation), for quick insertion: the persona keeps one voice.
    db.selectFrom('messages').select(['body', (eb) => eb.fn.max('id').as('last')]).where('sender_profile_id', '=', fictional.id).where('kind', '=', 'text')
      .where('body', 'is not', null).groupBy('body').orderBy('last', 'desc').limit(12).execute(),
  ]);
  const messages = await db.selectFrom('messages').leftJoin('users as op', 'op.id', 'messages.operator_user_id')
    .leftJoin('profiles as opp', 'opp.user_id', 'op.id')
    .select(['messages.id', 'messages.sender_profile_id', 'messages.kind', 'messages.body', 'messages.gift', 'messages.created_at', 'messages.operator_user_id', 'opp.name as operator_name'])
    .where('messages.conversation_id', '=', conversationId).orderBy('messages.id', 'desc').limit(100).execute();
  return {
    conversation_id: conversationId,
    fictional,
    member: { ...member, interests, credits: account?.credits ?? null },
    notes: state?.notes ?? null,
    notes_updated_at: state?.notes_updated_at === null || state?.notes_updated_at === undefined ? null : Number(state.notes_updated_at),
    earlier_lines: lines.map((l) => l.body as string),
    messages: messages.reverse(),
  };
}

/**
 * An operator answers as the fictional profile: the message is stored with the operator's id, the
 * profile's side is marked answered, and the member gets it live (events + bus) and as a push.
 */
export async function answerAsFictional(app: AppContext, staff: StaffCaller, input: { conversation_id: number; text: string; client_id: string }) {
  const db = app.db.db;
  const side = await fictionalSide(app, staff, input.conversation_id);
  if (side.member_status === 'deleted' || side.member_user_id === null) throw new StaffError('unavailable', 'admin.error.member_gone', 409);
  const site = app.sites.byIdOrNull(staff.siteId);
  if (site && input.text.length > site.message_length) throw new StaffError('too_long', 'admin.error.message_too_long', 400);
  const repeat = await chatRepo.findMessageByClientId(db, side.profile_id, input.client_id);
  if (repeat) return { message: chatRepo.toChatMessage(repeat) };
  const now = app.clock.now();
  const memberUserId = side.member_user_id;
  const { message, events } = await db.transaction().execute(async (trx) => {
    // Only the operator holding the conversation answers it; the answer gives the claim back.
    const released = await trx.updateTable('operator_conversations').set({ claimed_by: null, claim_expires_at: null })
      .where('conversation_id', '=', input.conversation_id).where('claimed_by', '=', staff.userId).where('claim_expires_at', '>', now)
      .executeTakeFirst();
    if (Number(released.numUpdatedRows) !== 1) {
      const holder = await trx.selectFrom('operator_conversations').select(['claimed_by', 'claim_expires_at']).where('conversation_id', '=', input.conversation_id).executeTakeFirst();
      const other = holder?.claimed_by != null && holder.claimed_by !== staff.userId && Number(holder.claim_expires_at) > now;
      throw other ? new StaffError('claimed', 'admin.error.claimed_elsewhere', 409) : new StaffError('not_claimed', 'admin.error.claim_required', 409);
    }
    const inserted = await trx.insertInto('messages').values({
      conversation_id: input.conversation_id, sender_profile_id: side.profile_id, kind: 'text', body: input.text, gift: null, image: null,
      credits: 0, client_id: input.client_id, created_at: now, operator_user_id: staff.userId,
    }).returningAll().executeTakeFirstOrThrow();
    for (const profileId of [side.profile_id, side.partner_profile_id].sort((a, b) => a - b)) {
      await trx.updateTable('chat_participants')
        .set((eb) => ({
          hidden: 0, last_message_id: inserted.id, last_message_at: now,
          unread_count: profileId === side.profile_id ? sql<number>`0` : eb('unread_count', '+', 1),
        }))
        .where('conversation_id', '=', input.conversation_id).where('profile_id', '=', profileId).execute();
    }
    const chatMessage = chatRepo.toChatMessage(inserted);
    await audit(trx, staff, now, { action: 'inbox_answer', targetType: 'conversation', targetId: input.conversation_id, after: { message_id: inserted.id, as_profile: side.profile_id } });
    const events = await recordEvents(trx, [
      { userId: memberUserId, event: { type: 'message', message: chatMessage, unread_messages: await chatRepo.unreadTotal(trx, side.partner_profile_id) } },
    ], now);
    return { message: chatMessage, events };
  });
  await app.bus.publish(events);
  app.push.notify(memberUserId, 'new_messages', (t) => ({
    title: t('push.message_title', { name: side.fictional_name }), body: t('push.message_body'),
    url: `/chats/${input.conversation_id}`, tag: `chat-${input.conversation_id}`,
  }));
  await announceByMail(app, memberUserId, 'new_messages', side.fictional_name);
  const next = await nextWaiting(app, staff, input.conversation_id, side.profile_id);
  return { message, next: next?.conversation_id ?? null };
}
