import type { NotificationType } from '../../shared/accounts.contract';
import { isLocale } from '../../shared/locales';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import { badgeTotals } from '../chat/chat.repository';
import type { User } from '../db/schema';
import { enqueueJob, enqueueJobs } from '../jobs/job-queue';
import { type NoticeKind, renderNoticeMail } from '../mail/notice-mail';
import { hasOpenTab } from './presence';
import { unsubscribeSecret, unsubscribeToken } from './unsubscribe';

/** Events within this long of the first fold into its mail. */
export const NOTICE_BATCH_MS = 60_000;
/** At most one mail per member and type in this window. */
export const NOTICE_INTERVAL_MS = 3600_000;
const WEEK_MS = 7 * 24 * 3600_000;

/** Notification types mailed when they happen (batched); reminders and weekly updates are periodic. */
export type EventNotice = 'new_conversations' | 'new_messages' | 'like';

const LINKS: Record<NoticeKind, string> = {
  new_conversations: '/chats', new_messages: '/chats', like: '/likes', unread_message_reminders: '/chats', weekly_updates: '/members',
};

interface Recipient {
  user: User;
  site: Site;
  profile: { id: number; name: string; country: string } | undefined;
}

/** A member who may get notification mails: confirmed address, not deleted, suspended or banned. */
async function findRecipient(app: AppContext, userId: number): Promise<Recipient | null> {
  const db = app.db.db;
  const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (user?.status !== 'confirmed' || user.deleted_at !== null || user.erased_at !== null || user.banned_at !== null) return null;
  if (user.suspended_until !== null && user.suspended_until > app.clock.now()) return null;
  const site = app.sites.byIdOrNull(user.site_id);
  if (!site) return null;
  const profile = await db.selectFrom('profiles').select(['id', 'name', 'country']).where('user_id', '=', userId).executeTakeFirst();
  return { user, site, profile };
}

function wantsMail(user: User, type: NotificationType): boolean {
  try {
    return (JSON.parse(user.email_prefs || '{}') as Record<string, boolean>)[type] !== false;
  } catch {
    return true;
  }
}

/** Renders and sends one notification mail with its one-click unsubscribe headers (RFC 8058). */
export async function sendNoticeMail(app: AppContext, to: Recipient, kind: NoticeKind, vars: { actor: string; count: number }) {
  const origin = app.sites.origin(to.site);
  const token = unsubscribeToken(await unsubscribeSecret(app.db.db), to.site.id, to.user.id, kind);
  const locale = isLocale(to.user.language) ? to.user.language : 'en';
  const mail = renderNoticeMail(kind, to.site, locale, {
    name: to.profile?.name ?? to.user.email, actor: vars.actor, count: vars.count,
    link: `${origin}${LINKS[kind]}`, unsubscribeLink: `${origin}/unsubscribe?t=${token}`, settingsLink: `${origin}/settings`,
  });
  await app.mailer.send({
    siteId: to.site.id, from: `"${to.site.mail_name}" <${to.site.support_email}>`, to: to.user.email, ...mail,
    headers: { 'List-Unsubscribe': `<${origin}/api/unsubscribe.php?t=${token}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  });
}

/**
 * A new conversation, message or like for a member (after its commit). Mailed only when the type
 * is on and the member has no open tab; the first event waits `NOTICE_BATCH_MS` (and at least an
 * hour after the last mail of the type) in a job, later ones fold into that mail.
 */
export async function noticeForMail(app: AppContext, userId: number, type: EventNotice, actor: string): Promise<void> {
  const now = app.clock.now();
  // Most events reach members who are on the site: one indexed lookup, then nothing.
  if (await hasOpenTab(app.db.db, userId, now)) return;
  const to = await findRecipient(app, userId);
  if (!to || !wantsMail(to.user, type)) return;
  await app.db.db.transaction().execute(async (trx) => {
    await trx.insertInto('mail_digests').values({ user_id: userId, type, pending_since: null, pending_count: 0, last_actor: null, last_sent_at: null })
      .onConflict((oc) => oc.columns(['user_id', 'type']).doNothing()).execute();
    // Of parallel events (any process) exactly one finds no mail waiting and queues its job.
    const started = await trx.updateTable('mail_digests').set({ pending_since: now, pending_count: 1, last_actor: actor })
      .where('user_id', '=', userId).where('type', '=', type).where('pending_since', 'is', null)
      .returning('last_sent_at').executeTakeFirst();
    if (!started) {
      await trx.updateTable('mail_digests').set((eb) => ({ pending_count: eb('pending_count', '+', 1), last_actor: actor }))
        .where('user_id', '=', userId).where('type', '=', type).execute();
      return;
    }
    const runAt = Math.max(now + NOTICE_BATCH_MS, (started.last_sent_at ?? 0) + NOTICE_INTERVAL_MS);
    await enqueueJob(trx, { name: 'notice_mail', payload: { userId, type }, runAt }, now);
  });
}

/** Job `notice_mail`: sends the batched mail of one member and type, unless it is no longer needed. */
export async function deliverNoticeMail(app: AppContext, payload: Record<string, unknown>): Promise<void> {
  const userId = Number(payload.userId);
  const type = String(payload.type) as EventNotice;
  const db = app.db.db;
  const now = app.clock.now();
  const digest = await db.selectFrom('mail_digests').selectAll().where('user_id', '=', userId).where('type', '=', type).executeTakeFirst();
  if (!digest || digest.pending_since === null) return;
  const to = await findRecipient(app, userId);
  const totals = to?.profile ? await badgeTotals(db, to.profile.id) : { unread_messages: 0, new_likes: 0 };
  const outstanding = type === 'like' ? totals.new_likes : totals.unread_messages;
  // Switched off, on the site right now, or already seen: nothing to mail.
  const needed = to !== null && wantsMail(to.user, type) && outstanding > 0 && !(await hasOpenTab(db, userId, now));
  if (to && needed) await sendNoticeMail(app, to, type, { actor: digest.last_actor ?? '', count: type === 'new_conversations' ? digest.pending_count : outstanding });
  await db.transaction().execute(async (trx) => {
    const cleared = await trx.updateTable('mail_digests')
      .set({ pending_since: null, pending_count: 0, last_sent_at: needed ? now : digest.last_sent_at })
      .where('user_id', '=', userId).where('type', '=', type)
      .where('pending_since', '=', digest.pending_since).where('pending_count', '=', digest.pending_count)
      .executeTakeFirst();
    if (Number(cleared.numUpdatedRows) > 0 || !needed) return;
    // Events that arrived while this mail went out wait for the next window.
    await trx.updateTable('mail_digests')
      .set((eb) => ({ pending_since: now, pending_count: eb('pending_count', '-', digest.pending_count), last_sent_at: now }))
      .where('user_id', '=', userId).where('type', '=', type).execute();
    await enqueueJob(trx, { name: 'notice_mail', payload: { userId, type }, runAt: now + NOTICE_INTERVAL_MS }, now);
  });
}

/** Periodic `unread_reminders` (daily): one reminder job per member with unread messages. */
export async function queueUnreadReminders(app: AppContext, payload: Record<string, unknown>): Promise<void> {
  const db = app.db.db;
  const now = app.clock.now();
  const rows = await db.selectFrom('chat_participants')
    .innerJoin('profiles', 'profiles.id', 'chat_participants.profile_id')
    .innerJoin('users', 'users.id', 'profiles.user_id')
    .select('users.id').distinct()
    .where('chat_participants.unread_count', '>', 0).where('chat_participants.hidden', '=', 0)
    .where('users.status', '=', 'confirmed').where('users.deleted_at', 'is', null)
    .execute();
  await enqueueJobs(db, rows.map(({ id }) => ({ name: 'reminder_mail', uniqueKey: `reminder_mail:${payload.slot}:${id}`, payload: { userId: id }, runAt: now })), now);
}

/** Job `reminder_mail`: the daily unread-message reminder of one member. */
export async function deliverUnreadReminder(app: AppContext, payload: Record<string, unknown>): Promise<void> {
  const to = await findRecipient(app, Number(payload.userId));
  if (!to?.profile || !wantsMail(to.user, 'unread_message_reminders')) return;
  const { unread_messages } = await badgeTotals(app.db.db, to.profile.id);
  if (unread_messages === 0 || (await hasOpenTab(app.db.db, to.user.id, app.clock.now()))) return;
  await sendNoticeMail(app, to, 'unread_message_reminders', { actor: '', count: unread_messages });
}

/** Periodic `weekly_update`: one weekly mail job per member with a profile. */
export async function queueWeeklyUpdates(app: AppContext, payload: Record<string, unknown>): Promise<void> {
  const db = app.db.db;
  const now = app.clock.now();
  const rows = await db.selectFrom('users').innerJoin('profiles', 'profiles.user_id', 'users.id').select('users.id')
    .where('users.status', '=', 'confirmed').where('users.deleted_at', 'is', null).where('users.role', '=', 'member')
    .where('profiles.status', '=', 'active').execute();
  await enqueueJobs(db, rows.map(({ id }) => ({ name: 'weekly_mail', uniqueKey: `weekly_mail:${payload.slot}:${id}`, payload: { userId: id }, runAt: now })), now);
}

/** Job `weekly_mail`: the members who joined this week in the member's country (none: no mail). */
export async function deliverWeeklyUpdate(app: AppContext, payload: Record<string, unknown>): Promise<void> {
  const to = await findRecipient(app, Number(payload.userId));
  if (!to?.profile || !wantsMail(to.user, 'weekly_updates')) return;
  const now = app.clock.now();
  const fresh = await app.db.db.selectFrom('profiles').select('name')
    .where('site_id', '=', to.site.id).where('country', '=', to.profile.country).where('id', '!=', to.profile.id)
    .where('status', '=', 'active').where('invisible', '=', 0).where('fictional', '=', 0).where('user_id', 'is not', null)
    .where('created_at', '>=', now - WEEK_MS)
    .orderBy('created_at', 'desc').limit(50).execute();
  if (fresh.length === 0) return;
  await sendNoticeMail(app, to, 'weekly_updates', { actor: fresh.slice(0, 3).map((p) => p.name).join(', '), count: fresh.length });
}

/** `noticeForMail` for callers whose own work is done: a failure is logged, never thrown. */
export async function announceByMail(app: AppContext, userId: number, type: EventNotice, actor: string): Promise<void> {
  try {
    await noticeForMail(app, userId, type, actor);
  } catch (err) {
    app.logger.warn({ err, userId, type }, 'notification mail not queued');
  }
}
