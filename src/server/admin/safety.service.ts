import { sql } from 'kysely';
import { isLocale } from '../../shared/locales';
import type { SafetyActionInput, SignalKind } from '../../shared/safety.contract';
import type { AppContext } from '../app-context';
import { renderMail } from '../mail/templates';
import { runMemberAction } from './members.service';
import { type StaffCaller, StaffError, audit } from './staff.service';

/** Accounts in the queue, and flagged messages per account shown with their conversation. */
const QUEUE_ACCOUNTS = 50;
const MESSAGES_PER_ACCOUNT = 5;
/** Messages shown before and after a flagged one. */
const CONTEXT = 2;

export type SafetySort = 'newest' | 'most';

/**
 * The staff queue (issue 26 item 5): accounts of the staff member's own site with open signals,
 * newest or most-flagged first, with the flagged messages in their conversation and the member's
 * history (account age, conversations started, reports against them, paid payments).
 */
export async function safetyQueue(app: AppContext, staff: StaffCaller, sort: SafetySort) {
  const db = app.db.db;
  const accounts = await db.selectFrom('safety_signals as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('profiles as p', 'p.id', 's.profile_id')
    .select((eb) => [
      's.user_id', 's.profile_id', 'p.name', 'u.created_at as account_created_at', 'u.banned_at', 'u.suspended_until',
      eb.fn.countAll<number>().as('signals'), eb.fn.max('s.created_at').as('last_at'),
    ])
    .where('s.site_id', '=', staff.siteId).where('s.status', '=', 'open')
    .groupBy(['s.user_id', 's.profile_id', 'p.name', 'u.created_at', 'u.banned_at', 'u.suspended_until'])
    .orderBy(sort === 'most' ? sql`count(*)` : sql`max(s.created_at)`, 'desc')
    .orderBy(sort === 'most' ? sql`max(s.created_at)` : sql`count(*)`, 'desc')
    .limit(QUEUE_ACCOUNTS)
    .execute();
  return Promise.all(accounts.map(async (a) => {
    const [kinds, signals, started, reports, payments] = await Promise.all([
      db.selectFrom('safety_signals').select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
        .where('user_id', '=', a.user_id).where('status', '=', 'open').groupBy('kind').execute(),
      db.selectFrom('safety_signals as s').leftJoin('messages as m', 'm.id', 's.message_id')
        .select(['s.id', 's.kind', 's.message_id', 's.conversation_id', 's.score', 's.created_at', 'm.body', 'm.kind as message_kind'])
        .where('s.user_id', '=', a.user_id).where('s.status', '=', 'open').orderBy('s.id', 'desc').limit(MESSAGES_PER_ACCOUNT * 3).execute(),
      db.selectFrom('conversations').select((eb) => eb.fn.countAll<number>().as('n')).where('starter_profile_id', '=', a.profile_id).executeTakeFirstOrThrow(),
      db.selectFrom('reports').select((eb) => eb.fn.countAll<number>().as('n')).where('profile_id', '=', a.profile_id).executeTakeFirstOrThrow(),
      db.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', a.user_id).where('status', '=', 'paid').executeTakeFirstOrThrow(),
    ]);
    // One entry per flagged message (a message may carry several kinds), with its conversation around it.
    const byMessage = new Map<number | string, { kinds: SignalKind[]; signal: (typeof signals)[number] }>();
    for (const s of signals) {
      const key = s.message_id ?? `s${s.id}`;
      const entry = byMessage.get(key);
      if (entry) entry.kinds.push(s.kind);
      else byMessage.set(key, { kinds: [s.kind], signal: s });
    }
    const messages = await Promise.all([...byMessage.values()].slice(0, MESSAGES_PER_ACCOUNT).map(async ({ kinds, signal }) => ({
      kinds, message_id: signal.message_id, text: signal.message_kind === 'text' ? signal.body : null, score: signal.score, created_at: Number(signal.created_at),
      context: signal.message_id !== null && signal.conversation_id !== null ? await around(app, signal.conversation_id, signal.message_id) : [],
    })));
    return {
      user_id: a.user_id, profile_id: a.profile_id, name: a.name, signals: Number(a.signals), last_at: Number(a.last_at),
      kinds: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])) as Partial<Record<SignalKind, number>>,
      history: {
        account_created_at: Number(a.account_created_at), conversations_started: Number(started.n), reports_against: Number(reports.n), paid_payments: Number(payments.n),
        banned: a.banned_at !== null, suspended_until: a.suspended_until === null ? null : Number(a.suspended_until),
      },
      messages,
    };
  }));
}

/** The messages around one in its conversation, oldest first, with who wrote them. */
async function around(app: AppContext, conversationId: number, messageId: number) {
  const db = app.db.db;
  const pick = (before: boolean) => db.selectFrom('messages as m').innerJoin('profiles as p', 'p.id', 'm.sender_profile_id')
    .select(['m.id', 'm.kind', 'm.body', 'm.created_at', 'p.name as sender', 'm.sender_profile_id'])
    .where('m.conversation_id', '=', conversationId).where('m.id', before ? '<=' : '>', messageId)
    .orderBy('m.id', before ? 'desc' : 'asc').limit(before ? CONTEXT + 1 : CONTEXT).execute();
  const [before, after] = await Promise.all([pick(true), pick(false)]);
  return [...before.reverse(), ...after].map((m) => ({ id: m.id, sender: m.sender, sender_profile_id: m.sender_profile_id, kind: m.kind, text: m.kind === 'text' ? m.body : null, flagged: m.id === messageId }));
}

/** Open signals per kind on the staff member's site (dashboard and navigation). */
export async function safetyCounts(app: AppContext, siteId: string) {
  const rows = await app.db.db.selectFrom('safety_signals').select((eb) => ['kind', eb.fn.countAll<number>().as('n'), eb.fn.count<number>('user_id').distinct().as('accounts')])
    .where('site_id', '=', siteId).where('status', '=', 'open').groupBy('kind').execute();
  const accounts = await app.db.db.selectFrom('safety_signals').select((eb) => eb.fn.count<number>('user_id').distinct().as('n'))
    .where('site_id', '=', siteId).where('status', '=', 'open').executeTakeFirstOrThrow();
  return { accounts: Number(accounts.n), kinds: Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)])) as Partial<Record<SignalKind, number>> };
}

/**
 * One staff action on a queued account, audited: dismiss (the signals were harmless; held spam is
 * released and its count starts again), warn (a mail in the member's language), suspend or ban (the
 * member action, audited there). Every action closes the account's open signals.
 */
export async function runSafetyAction(app: AppContext, staff: StaffCaller, input: SafetyActionInput) {
  const db = app.db.db;
  const user = await db.selectFrom('users').selectAll().where('id', '=', input.user_id).where('site_id', '=', staff.siteId).executeTakeFirst();
  const open = user
    ? await db.selectFrom('safety_signals').select(['id', 'kind', 'profile_id']).where('user_id', '=', user.id).where('status', '=', 'open').execute()
    : [];
  // Another site's member, or one without open signals, is not in this queue.
  if (!user || open.length === 0) throw new StaffError('not_found', 'admin.error.member_not_found', 404);
  if (input.action === 'suspend' || input.action === 'ban') {
    if (input.action === 'suspend' && input.days === undefined) throw new StaffError('invalid', 'admin.error.days', 400, {}, { days: 'admin.error.days' });
    await runMemberAction(app, staff, input.action === 'suspend'
      ? { action: 'suspend', user_id: user.id, reason: input.reason, days: input.days as number }
      // The safety queue's own ban button is the confirmation (its form names the account).
      : { action: 'ban', user_id: user.id, reason: input.reason, confirmed: true });
  }
  const now = app.clock.now();
  const status = input.action === 'dismiss' ? 'dismissed' : 'actioned';
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('safety_signals').set({ status }).where('user_id', '=', user.id).where('status', '=', 'open').execute();
    // Dismissed spam starts counting again from here.
    if (input.action === 'dismiss') await trx.deleteFrom('message_fingerprints').where('sender_profile_id', '=', open[0].profile_id).execute();
    await audit(trx, staff, now, {
      action: `safety_${input.action}`, targetType: 'member', targetId: user.id, reason: input.reason,
      before: { open_signals: open.length, kinds: [...new Set(open.map((s) => s.kind))] }, after: { status },
    });
  });
  if (input.action === 'warn') {
    const site = app.sites.byIdOrNull(user.site_id);
    const profile = await db.selectFrom('profiles').select('name').where('user_id', '=', user.id).executeTakeFirst();
    if (site) {
      const mail = renderMail('safety_warning', site, isLocale(user.language) ? user.language : 'en', { name: profile?.name ?? user.email, link: `${app.sites.origin(site)}/chats` });
      await app.mailer.send({ siteId: site.id, from: `"${site.mail_name}" <${site.support_email}>`, to: user.email, ...mail });
    }
  }
  return { status, signals: open.length };
}
