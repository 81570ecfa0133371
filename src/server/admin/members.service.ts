import { sql } from 'kysely';
import { type MemberActionInput, can } from '../../shared/admin.contract';
import type { AppContext } from '../app-context';
import { deleteUserSessions } from '../accounts/accounts.repository';
import { InsufficientCreditsError, applyCredits } from '../credits/ledger';
import type { User } from '../db/schema';
import { recordEvents } from '../events/events.service';
import { refundPayment } from '../payments/payments.service';
import type { CreditsEvent } from '../../shared/payments.contract';
import { type StaffCaller, StaffError, audit } from './staff.service';

const DAY_MS = 86_400_000;

/**
 * Finds members of the staff member's site by id, e-mail (exact or part) or profile name; with no query, the newest
 * signups. At most 50, newest first.
 */
export async function searchMembers(app: AppContext, staff: StaffCaller, query: string) {
  const db = app.db.db;
  const q = query.trim();
  let base = db.selectFrom('users').leftJoin('profiles', 'profiles.user_id', 'users.id')
    .select(['users.id', 'users.email', 'users.status', 'users.credits', 'users.paid_user', 'users.created_at', 'users.deleted_at', 'users.banned_at', 'users.suspended_until', 'profiles.id as profile_id', 'profiles.name'])
    .where('users.site_id', '=', staff.siteId)
    // An erased account has nothing left to show (its page answers 404).
    .where('users.erased_at', 'is', null);
  if (/^\d+$/.test(q)) base = base.where((eb) => eb.or([eb('users.id', '=', Number(q)), eb('profiles.id', '=', Number(q))]));
  else if (q) {
    const like = `%${q.toLowerCase().replace(/[%_\\]/g, (m) => `\\${m}`)}%`;
    base = base.where((eb) => eb.or([
      eb(sql`lower(users.email_normalized)`, 'like', sql`${like} escape '\\'`),
      eb(sql`lower(profiles.name)`, 'like', sql`${like} escape '\\'`),
    ]));
  }
  return base.orderBy('users.id', 'desc').limit(50).execute();
}

async function memberOfSite(app: AppContext, staff: StaffCaller, userId: number): Promise<User> {
  const user = await app.db.db.selectFrom('users').selectAll().where('id', '=', userId).where('site_id', '=', staff.siteId).executeTakeFirst();
  // Another site's member is as unknown as a missing one.
  if (!user || user.erased_at !== null) throw new StaffError('not_found', 'admin.error.member_not_found', 404);
  return user;
}

/** The name staff type to confirm a deletion: the profile's name, or the e-mail address without one. */
export async function memberName(app: AppContext, user: Pick<User, 'id' | 'email'>) {
  const profile = await app.db.db.selectFrom('profiles').select('name').where('user_id', '=', user.id).executeTakeFirst();
  return profile?.name ?? user.email;
}
const sameName = (typed: string, name: string) => typed.trim().normalize('NFC').toLocaleLowerCase() === name.trim().normalize('NFC').toLocaleLowerCase();

/** Everything the console shows about a member; money only for roles that handle money. */
export async function memberDetail(app: AppContext, staff: StaffCaller, userId: number) {
  const db = app.db.db;
  const user = await memberOfSite(app, staff, userId);
  const profile = await db.selectFrom('profiles').selectAll().where('user_id', '=', user.id).executeTakeFirst();
  const photos = profile ? await db.selectFrom('photos').select(['id', 'thumb_filename', 'status', 'is_main', 'created_at']).where('profile_id', '=', profile.id).orderBy('id').execute() : [];
  const reports = profile
    ? await db.selectFrom('reports').innerJoin('profiles as reporter', 'reporter.id', 'reports.reporter_profile_id')
      .select(['reports.id', 'reports.reason', 'reports.details', 'reports.status', 'reports.created_at', 'reporter.name as reporter', 'reports.profile_id', 'reports.reporter_profile_id'])
      .where((eb) => eb.or([eb('reports.profile_id', '=', profile.id), eb('reports.reporter_profile_id', '=', profile.id)]))
      .orderBy('reports.id', 'desc').limit(50).execute()
    : [];
  const sessions = await db.selectFrom('sessions').select(['created_at', 'expires_at', 'user_agent']).where('user_id', '=', user.id).where('expires_at', '>', app.clock.now()).orderBy('created_at', 'desc').execute();
  const money = can(staff.role, 'member_money');
  const ledger = money ? await db.selectFrom('credit_ledger').select(['id', 'delta', 'reason', 'balance_after', 'created_at']).where('user_id', '=', user.id).orderBy('id', 'desc').limit(100).execute() : null;
  const payments = money
    ? await db.selectFrom('payments').select(['id', 'status', 'method', 'country', 'currency', 'amount', 'credits', 'refunded_amount', 'charged_back_amount', 'created_at', 'paid_at'])
      .where('user_id', '=', user.id).orderBy('id', 'desc').limit(100).execute()
    : null;
  const ddBlocked = money ? Boolean(await db.selectFrom('dd_blocks').select('user_id').where('user_id', '=', user.id).executeTakeFirst()) : null;
  return {
    account: {
      id: user.id, email: user.email, status: user.status, role: user.role, credits: user.credits, paid_user: user.paid_user === 1, language: user.language,
      created_at: user.created_at, confirmed_at: user.confirmed_at, deleted_at: user.deleted_at, banned_at: user.banned_at,
      suspended_until: user.suspended_until, tracking: user.tracking ? JSON.parse(user.tracking) : null, dd_blocked: ddBlocked,
    },
    profile, photos, reports, sessions, ledger, payments,
  };
}

/** One staff action on a member: checked, applied and audited (before/after) in one transaction. */
export async function runMemberAction(app: AppContext, staff: StaffCaller, input: MemberActionInput) {
  const result = await applyMemberAction(app, staff, input);
  // Every process drops its cached session of the member, so a ban, suspension or ended session holds at once.
  await app.sessions.invalidate({ users: [input.user_id] });
  return result;
}

async function applyMemberAction(app: AppContext, staff: StaffCaller, input: MemberActionInput) {
  const db = app.db.db;
  const user = await memberOfSite(app, staff, input.user_id);
  if (user.id === staff.userId) throw new StaffError('self', 'admin.error.not_on_self', 400);
  // Only an admin acts on another staff account.
  if (user.role === 'staff' && staff.role !== 'admin') throw new StaffError('forbidden', 'admin.error.forbidden', 403);
  const now = app.clock.now();
  const base = { targetType: 'member', targetId: user.id, reason: input.reason };
  switch (input.action) {
    case 'grant_credits':
    case 'take_credits': {
      const delta = input.action === 'grant_credits' ? input.amount : -input.amount;
      try {
        const { balance, events } = await db.transaction().execute(async (trx) => {
          const balance = await applyCredits(trx, { userId: user.id, delta, reason: 'admin', key: `admin:${staff.userId}:${now}:${Math.random().toString(36).slice(2)}`, now });
          await audit(trx, staff, now, { ...base, action: input.action, before: { credits: user.credits }, after: { credits: balance } });
          // The member's open tabs show the new balance at once, as after a payment.
          const event: CreditsEvent = { type: 'credits', credits: balance ?? user.credits };
          return { balance, events: await recordEvents(trx, [{ userId: user.id, event }], now) };
        });
        await app.bus.publish(events);
        return { credits: balance };
      } catch (err) {
        if (err instanceof InsufficientCreditsError) throw new StaffError('insufficient_credits', 'admin.error.below_zero', 400, { credits: user.credits }, { amount: 'admin.error.below_zero' });
        throw err;
      }
    }
    case 'refund': {
      // Claimed, asked of the provider and audited (also when refused) in the transaction that applies it.
      const updated = await refundPayment(app, { siteId: staff.siteId, paymentId: input.payment_id, userId: user.id }, input.amount ?? null, (trx, outcome) =>
        audit(trx, staff, now, {
          ...base, action: outcome.refused ? 'refund_refused' : 'refund', targetType: 'payment', targetId: outcome.row.id,
          before: { status: outcome.row.status, refunded_amount: outcome.row.refunded_amount, amount: outcome.cents },
          after: outcome.refused ? { refused: outcome.refused } : {
            status: outcome.row.status, refunded_amount: outcome.row.refunded_amount, credits_taken_back: outcome.row.credits_taken_back, credits_owed: outcome.row.credits_owed,
          },
        }));
      return { payment: { status: updated.status, refunded_amount: updated.refunded_amount, credits_taken_back: updated.credits_taken_back, credits_owed: updated.credits_owed } };
    }
    case 'block_direct_debit': {
      return db.transaction().execute(async (trx) => {
        const existing = await trx.selectFrom('dd_blocks').select('reason').where('user_id', '=', user.id).executeTakeFirst();
        if (existing) throw new StaffError('already', 'admin.error.already_blocked', 409);
        await trx.insertInto('dd_blocks').values({ user_id: user.id, reason: 'staff', payment_id: null, created_at: now }).execute();
        await audit(trx, staff, now, { ...base, action: 'block_direct_debit', before: { dd_blocked: false }, after: { dd_blocked: true } });
        return { dd_blocked: true };
      });
    }
    case 'suspend':
    case 'ban':
    case 'lift_ban': {
      if (input.action === 'lift_ban' && user.banned_at === null && (user.suspended_until ?? 0) <= now) throw new StaffError('not_banned', 'admin.error.not_banned', 409);
      if (input.action === 'ban' && user.banned_at !== null) throw new StaffError('already', 'admin.error.already_banned', 409);
      const next = input.action === 'suspend'
        ? { suspended_until: now + input.days * DAY_MS, banned_at: user.banned_at }
        : input.action === 'ban' ? { suspended_until: user.suspended_until, banned_at: now } : { suspended_until: null, banned_at: null };
      return db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set(next).where('id', '=', user.id).execute();
        if (input.action !== 'lift_ban') await deleteUserSessions(trx, user.id);
        await audit(trx, staff, now, { ...base, action: input.action, before: { suspended_until: user.suspended_until, banned_at: user.banned_at }, after: next });
        return next;
      });
    }
    case 'end_sessions': {
      return db.transaction().execute(async (trx) => {
        const ended = await trx.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', user.id).executeTakeFirstOrThrow();
        await deleteUserSessions(trx, user.id);
        await audit(trx, staff, now, { ...base, action: 'end_sessions', before: { sessions: Number(ended.n) }, after: { sessions: 0 } });
        return { ended: Number(ended.n) };
      });
    }
    case 'reset_login_limits': {
      await app.limits.reset(`${staff.siteId}:${user.email_normalized}`);
      await audit(db, staff, now, { ...base, action: 'reset_login_limits' });
      return { reset: true };
    }
    case 'delete': {
      if (user.deleted_at !== null) throw new StaffError('already', 'admin.error.already_deleted', 409);
      if (!sameName(input.confirm_name, await memberName(app, user))) {
        throw new StaffError('confirm', 'admin.error.confirm_name', 400, {}, { confirm_name: 'admin.error.confirm_name' });
      }
      return db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ deleted_at: now }).where('id', '=', user.id).execute();
        await trx.updateTable('profiles').set({ status: 'deleted' }).where('user_id', '=', user.id).execute();
        await deleteUserSessions(trx, user.id);
        await audit(trx, staff, now, { ...base, action: 'delete', before: { deleted_at: null }, after: { deleted_at: now } });
        return { deleted_at: now };
      });
    }
  }
}
