import * as v from 'valibot';
import { recordAccountFunnelStep, recordFunnelStep } from '../landers/funnel.service';
import type { Tracking } from '../../shared/tracking';
import {
  type NotificationType, NOTIFICATION_TYPES, type SignupInput,
} from '../../shared/accounts.contract';
import { AUTH_COOKIE_MAX_AGE_S, REACTIVATION_DAYS } from '../../shared/constants';
import { isLocale, type Locale } from '../../shared/locales';
import type { Caller } from './caller';
import type { Site } from '../../shared/site.schema';
import { badgeTotals } from '../chat/chat.repository';
import { sendMessage } from '../chat/chat.service';
import { photoUrl } from '../../shared/profiles.contract';
import type { SessionUser } from '../../shared/user.contract';
import type { AppContext } from '../app-context';
import { RuleError } from '../rule-error';
import { applyCredits } from '../credits/ledger';
import { lockMember } from '../db/locks';
import type { User } from '../db/schema';
import type { Mailer } from '../mail/mailer';
import { type MailKind, renderMail } from '../mail/templates';
import * as repo from './accounts.repository';
import type { SessionMember } from './session-cache';
import { isCommonPassword } from './common-passwords';
import { RateLimitError, retryAfterSeconds } from '../limits/abuse-limits';
import type { LoginBlock, LoginLimits } from './login-limiter';
import { hashPassword, verifyPassword } from './password';
import { hashToken, normalizeEmail } from './tokens';
import { deleteProfileObjects } from '../storage/profile-objects';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const SESSION_TTL_MS = AUTH_COOKIE_MAX_AGE_S * 1000;
export const TOKEN_TTL = {
  activation: 7 * DAY,
  reset: 2 * HOUR,
  mail_change: 24 * HOUR,
  reactivate: REACTIVATION_DAYS * DAY,
  complete_signup: 7 * DAY,
} as const;
export const RESETS_PER_DAY = 3;

/** An accounts rule said no. */
export class AccountError extends RuleError {}

export interface AccountsDeps {
  app: AppContext;
  mailer: Mailer;
  limits: LoginLimits;
}

export type { Caller };

const allOn = () => Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, true])) as Record<NotificationType, boolean>;
function parsePrefs(json: string): Record<NotificationType, boolean> {
  try {
    return { ...allOn(), ...(JSON.parse(json) as Record<NotificationType, boolean>) };
  } catch {
    return allOn();
  }
}

function userLocale(user: User): Locale {
  return isLocale(user.language) ? user.language : 'en';
}

async function sendAccountMail(deps: AccountsDeps, site: Site, user: User, kind: MailKind, link: string, to = user.email) {
  const profile = await repo.findProfileOfUser(deps.app.db.db, user.id);
  const mail = renderMail(kind, site, userLocale(user), {
    name: profile?.name ?? to,
    link,
    hours: Math.round((kind === 'reset' ? TOKEN_TTL.reset : TOKEN_TTL.mail_change) / HOUR),
    days: REACTIVATION_DAYS,
  });
  await deps.mailer.send({ siteId: site.id, from: `"${site.mail_name}" <${site.support_email}>`, to, ...mail });
}

function checkPasswordStrength(password: string, context: string[]) {
  if (isCommonPassword(password, context)) {
    throw new AccountError('weak_password', 'auth.password_too_common', 400, {}, { password: 'auth.password_too_common' });
  }
}

/** The member as the client sees it (GET /api/user.php). */
export async function describeUser(deps: AccountsDeps, site: Site, user: User, member?: Pick<SessionMember, 'extras' | 'badges'>): Promise<SessionUser> {
  const db = deps.app.db.db;
  const extras = member?.extras;
  const profile = extras ? extras.profile : await repo.findProfileOfUser(db, user.id);
  const photo = extras ? extras.photo : profile ? await repo.findMainPhoto(db, profile.id) : undefined;
  // A cached session keeps its badge totals until the member changes (session-cache.ts).
  const badges = profile ? (member?.badges ?? (await badgeTotals(db, profile.id))) : { unread_messages: 0, new_likes: 0 };
  if (member && profile && !member.badges) member.badges = badges;
  const emailPrefs = parsePrefs(user.email_prefs);
  return {
    id: user.id,
    email: user.email,
    status: user.status,
    role: user.role,
    credits: user.credits,
    paid_user: user.paid_user === 1,
    language: user.language,
    fictional_icon: site.fictional_icon,
    signup_date: new Date(user.created_at).toISOString(),
    notifications_disabled: NOTIFICATION_TYPES.filter((type) => !emailPrefs[type]),
    email_prefs: emailPrefs,
    push_prefs: parsePrefs(user.push_prefs),
    invisible: profile?.invisible === 1,
    show_explicit_images: user.show_explicit_images === 1,
    ...badges,
    profile: {
      id: profile?.id ?? 0,
      name: profile?.name ?? '',
      status: profile?.status ?? 'disabled',
      main_image: photo ? { filename: photo.filename, thumb_filename: photo.thumb_filename, status: photo.status, match_path: photoUrl(photo.thumb_filename) } : null,
    },
  };
}

/** GET /api/user.php's body for a session; kept with the cached session until the member changes. */
export async function sessionUserBody(deps: AccountsDeps, site: Site, member: SessionMember): Promise<string> {
  if (member.answer === undefined) member.answer = JSON.stringify({ user: await describeUser(deps, site, member.user, member) });
  return member.answer;
}

/** Step 0 of the wizard: creates an unconfirmed account with a disabled profile, logs it in and mails the activation link. */
export async function signup(deps: AccountsDeps, caller: Caller, input: SignupInput & { tracking?: Tracking }): Promise<{ user: User; token: string }> {
  const { app } = deps;
  const db = app.db.db;
  const now = app.clock.now();
  const site = caller.site;
  if (site.signups === 'with_trafficsource' && !input.tracking?.network) {
    throw new AccountError('invite_only', 'signup.invite_only', 403);
  }
  const email = normalizeEmail(input.email);
  checkPasswordStrength(input.password, [input.name, email.split('@')[0], site.name]);
  await app.abuse.consume('signup_ip', caller.ip);
  const existing = await repo.findUserByEmail(db, site.id, email);
  if (existing) {
    if (existing.deleted_at !== null && existing.erased_at === null) throw new AccountError('pending_deletion', 'auth.pending_deletion', 409, {}, { email: 'auth.pending_deletion' });
    throw new AccountError('email_taken', 'auth.account_exists', 409, {}, { email: 'auth.account_exists' });
  }
  let target: number | null = null;
  if (input.target_profile_id) {
    const profile = await db.selectFrom('profiles').select('id').where('id', '=', input.target_profile_id).where('site_id', '=', site.id).where('status', '=', 'active').executeTakeFirst();
    target = profile?.id ?? null;
  }
  const passwordHash = await hashPassword(input.password);
  const language = input.language ?? caller.locale;
  const gender = input.gender ?? (site.niche === 7 ? 'male' : 'male');
  const user = await db.transaction().execute(async (trx) => {
    const created = await trx
      .insertInto('users')
      .values({
        site_id: site.id, email: input.email.trim(), email_normalized: email, password_hash: passwordHash, status: 'not_confirmed',
        role: 'member', credits: 0, paid_user: 0, language, email_prefs: JSON.stringify(allOn()), push_prefs: JSON.stringify(allOn()),
        tracking: input.tracking && Object.keys(input.tracking).length > 0 ? JSON.stringify(input.tracking) : null, signup_message: input.signup_message || null,
        target_profile_id: target, api_signup: 0, created_at: now, confirmed_at: null, deleted_at: null, erased_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('profiles')
      .values({
        site_id: site.id, user_id: created.id, name: input.name.trim(), gender,
        sexuality: site.niche === 7 ? 'gay' : site.niche === 2 ? 'lesbian' : 'hetero',
        birth_date: input.date_of_birth, country: site.countries[0], region: null, city: null, hair_color: null, eye_color: null,
        body_type: null, relationship_status: null, tattoos: null, about: null, fictional: 0, invisible: 0, status: 'disabled',
        last_active_at: now, created_at: now,
      })
      .execute();
    return created;
  });
  const token = await repo.createSession(db, user.id, now, SESSION_TTL_MS, caller.userAgent ?? null);
  await recordFunnelStep(db, site.id, input.tracking ?? {}, 'accounts_created');
  if (target !== null && input.signup_message?.trim()) {
    // The wizard's free message goes to the profile the visitor came for; its partner can reply once
    // the new member confirms the e-mail address. A refused message never fails the signup.
    await sendMessage(app, site, user, { kind: 'text', text: input.signup_message, profile_id: target, client_id: `signup-${user.id}` }, { free: true })
      .catch((err) => app.logger.warn({ err }, 'signup message not delivered'));
  }
  await sendActivation(deps, caller, user);
  return { user, token };
}

/** Counts an activation or reset mail against the limits per address and per IP. */
async function consumeMailLimits(deps: AccountsDeps, caller: Caller, email: string) {
  await deps.app.abuse.consume('mail_address', `${caller.site.id}:${email}`);
  await deps.app.abuse.consume('mail_ip', caller.ip);
}

/** Mails a fresh activation link (the old ones stay valid until they expire). */
export async function sendActivation(deps: AccountsDeps, caller: Caller, user: User) {
  if (user.status === 'confirmed') throw new AccountError('already_confirmed', 'auth.already_confirmed', 409);
  const link = await repo.createUserToken(deps.app.db.db, user.id, 'activation', deps.app.clock.now(), TOKEN_TTL.activation);
  await sendAccountMail(deps, caller.site, user, 'activation', `${caller.origin}/api/activate.php?token=${link}`);
}

/** The member asks for the activation mail again: counted per address and per IP. */
export async function resendActivation(deps: AccountsDeps, caller: Caller, user: User) {
  if (user.status === 'confirmed') throw new AccountError('already_confirmed', 'auth.already_confirmed', 409);
  await consumeMailLimits(deps, caller, user.email_normalized);
  await sendActivation(deps, caller, user);
}

/** Confirms the e-mail address: activates the profile and grants the signup credits once. */
export async function activate(deps: AccountsDeps, site: Site, token: string): Promise<User> {
  const { app } = deps;
  const now = app.clock.now();
  const activated = await app.db.db.transaction().execute(async (trx) => {
    const row = await repo.consumeUserToken(trx, token, 'activation', site.id, now);
    if (!row) throw new AccountError('activation_failed', 'auth.activation_failed', 400);
    const user = await repo.findUserById(trx, row.user_id);
    if (!user || user.deleted_at !== null) throw new AccountError('activation_failed', 'auth.activation_failed', 400);
    if (user.status !== 'confirmed') {
      await trx.updateTable('users').set({ status: 'confirmed', confirmed_at: now }).where('id', '=', user.id).execute();
      await trx.updateTable('profiles').set({ status: 'active' }).where('user_id', '=', user.id).where('status', '=', 'disabled').execute();
      await recordAccountFunnelStep(trx, site.id, user, 'activated');
      await trx.insertInto('notifications').values({ user_id: user.id, type: 'welcome', payload: JSON.stringify({ site: site.name, credits: site.signup_credits }), created_at: now, read_at: null }).execute();
    }
    if (site.signup_credits > 0) {
      await applyCredits(trx, { userId: user.id, delta: site.signup_credits, reason: 'signup_bonus', key: 'signup_bonus', now });
    }
    return (await repo.findUserById(trx, user.id)) as User;
  });
  await forgetSessions(deps, activated.id);
  return activated;
}

/** Drops the member's cached sessions in every process (after a change to them committed). */
function forgetSessions(deps: AccountsDeps, userId: number) {
  return deps.app.sessions.invalidate({ users: [userId] });
}

/** The 429 of a login block: it says whether the account or the client's address is blocked. */
function loginBlocked(block: LoginBlock) {
  return new RateLimitError(block.by === 'account' ? 'auth.too_many_attempts' : 'limits.login_ip', retryAfterSeconds(block.ms), 'blocked');
}

/** Staff suspended or banned this account: no new session (the message points to the access-ban page). */
function refuseBanned(user: User, now: number) {
  if (user.banned_at !== null && user.banned_at !== undefined) throw new AccountError('access_banned', 'admin.member.banned_login', 403);
  if (user.suspended_until && user.suspended_until > now) {
    throw new AccountError('access_suspended', 'admin.member.suspended_login', 403, { date: new Date(user.suspended_until).toISOString().slice(0, 10) });
  }
}

/** Logs in with e-mail and password; the same answer for any wrong pair, and a block after repeated failures. */
export async function login(deps: AccountsDeps, caller: Caller, emailInput: string, password: string): Promise<{ user: User; token: string }> {
  const { app, limits } = deps;
  const db = app.db.db;
  const email = normalizeEmail(emailInput);
  const accountKey = `${caller.site.id}:${email}`;
  const block = await limits.blockedFor(accountKey, caller.ip);
  if (block) throw loginBlocked(block);
  const user = await repo.findUserByEmail(db, caller.site.id, email);
  const ok = await verifyPassword(user?.password_hash ?? null, password);
  if (!user || !ok) {
    const newBlock = await limits.recordFailure(accountKey, caller.ip);
    if (newBlock) throw loginBlocked(newBlock);
    throw new AccountError('login_failed', 'auth.login_failed', 401);
  }
  if (user.deleted_at !== null) throw new AccountError('pending_deletion', 'auth.pending_deletion', 403);
  const now = app.clock.now();
  refuseBanned(user, now);
  await limits.reset(accountKey);
  const token = await repo.createSession(db, user.id, now, SESSION_TTL_MS, caller.userAgent ?? null);
  await db.updateTable('profiles').set({ last_active_at: now }).where('user_id', '=', user.id).execute();
  return { user, token };
}

/** The member of this site behind a session cookie with what GET user.php shows, in one query. */
/** The member behind a session cookie on this site, from the process's session cache when it is still valid. */
export async function memberForSession(deps: AccountsDeps, site: Site, token: string | undefined): Promise<SessionMember | undefined> {
  if (!token || token.length > 100) return undefined;
  const { sessions, clock, db } = deps.app;
  const hash = hashToken(token);
  const now = clock.now();
  const cached = sessions.get(hash, site.id, now);
  if (cached) return cached;
  const ticket = sessions.ticket();
  const member = await repo.findSessionMember(db.db, hash, site.id, now);
  if (member) sessions.store(hash, site.id, member, ticket);
  return member;
}

/** Ends one session, here and in the session cache of every process. */
export async function logout(deps: AccountsDeps, token: string | undefined, userId?: number) {
  if (!token) return;
  await repo.deleteSession(deps.app.db.db, token);
  await deps.app.sessions.invalidate(userId ? { users: [userId] } : { tokens: [hashToken(token)] });
}

export async function setLanguage(deps: AccountsDeps, user: User, language: Locale) {
  await deps.app.db.db.updateTable('users').set({ language }).where('id', '=', user.id).execute();
}

/** Starts a password reset: mails a single-use link, at most RESETS_PER_DAY a day. */
export async function requestPasswordReset(deps: AccountsDeps, caller: Caller, emailInput: string) {
  const { app } = deps;
  // Per IP before the lookup, so the form cannot be used to test many addresses.
  await app.abuse.consume('mail_ip', caller.ip);
  const user = await repo.findUserByEmail(app.db.db, caller.site.id, normalizeEmail(emailInput));
  if (!user || user.erased_at !== null) throw new AccountError('email_not_found', 'auth.email_not_found', 404, {}, { email: 'auth.email_not_found' });
  await app.abuse.consume('mail_address', `${caller.site.id}:${user.email_normalized}`);
  const now = app.clock.now();
  const dayStart = now - (now % DAY);
  // Counted and created under the member's lock: parallel requests cannot pass the daily limit.
  const token = await app.db.db.transaction().execute(async (trx) => {
    await lockMember(trx, app.db.dialect, user.id);
    if ((await repo.countTokensSince(trx, user.id, 'reset', dayStart)) >= RESETS_PER_DAY) {
      throw new AccountError('too_many_resets', 'auth.too_many_resets', 429);
    }
    return repo.createUserToken(trx, user.id, 'reset', now, TOKEN_TTL.reset);
  });
  await sendAccountMail(deps, caller.site, user, 'reset', `${caller.origin}/reset-password/do?token=${token}`);
}

/** Whether a reset link still works (unused, unexpired, this site's): a used one gets no new-password form. */
export async function isResetLinkLive(deps: AccountsDeps, site: Site, token: string): Promise<boolean> {
  return repo.isUserTokenLive(deps.app.db.db, token, 'reset', site.id, deps.app.clock.now());
}

/** Sets a new password from a reset link; every session of the member ends. */
export async function resetPassword(deps: AccountsDeps, caller: Caller, token: string, password: string): Promise<{ user: User; token: string }> {
  const { app } = deps;
  const now = app.clock.now();
  const user = await app.db.db.transaction().execute(async (trx) => {
    const row = await repo.consumeUserToken(trx, token, 'reset', caller.site.id, now);
    const found = row ? await repo.findUserById(trx, row.user_id) : undefined;
    if (!found || found.site_id !== caller.site.id) throw new AccountError('link_invalid', 'auth.link_invalid', 410);
    checkPasswordStrength(password, [found.email.split('@')[0], caller.site.name]);
    await trx.updateTable('users').set({ password_hash: await hashPassword(password) }).where('id', '=', found.id).execute();
    await repo.deleteUserSessions(trx, found.id);
    return found;
  });
  await forgetSessions(deps, user.id);
  await deps.limits.reset(`${caller.site.id}:${user.email_normalized}`);
  refuseBanned(user, now);
  return { user, token: await repo.createSession(app.db.db, user.id, now, SESSION_TTL_MS, caller.userAgent ?? null) };
}

/** Changes the password after checking the old one; all other sessions end, this client gets a new one. */
export async function changePassword(deps: AccountsDeps, caller: Caller, user: User, oldPassword: string, password: string) {
  if (!(await verifyPassword(user.password_hash, oldPassword))) {
    throw new AccountError('wrong_password', 'auth.check_old_password', 400, {}, { old_password: 'auth.check_old_password' });
  }
  checkPasswordStrength(password, [user.email.split('@')[0], caller.site.name]);
  const db = deps.app.db.db;
  await db.updateTable('users').set({ password_hash: await hashPassword(password) }).where('id', '=', user.id).execute();
  await repo.deleteUserSessions(db, user.id);
  await forgetSessions(deps, user.id);
  return repo.createSession(db, user.id, deps.app.clock.now(), SESSION_TTL_MS, caller.userAgent ?? null);
}

/** Mails a confirmation link to the new address; the address changes only when it is opened. */
export async function requestMailChange(deps: AccountsDeps, caller: Caller, user: User, newEmail: string, password: string) {
  if (!(await verifyPassword(user.password_hash, password))) {
    throw new AccountError('wrong_password', 'auth.check_old_password', 400, {}, { password: 'auth.check_old_password' });
  }
  const email = normalizeEmail(newEmail);
  if (email === user.email_normalized) throw new AccountError('invalid_new_email', 'auth.invalid_new_email', 400, {}, { email: 'auth.invalid_new_email' });
  if (await repo.findUserByEmail(deps.app.db.db, caller.site.id, email)) {
    throw new AccountError('email_owned', 'auth.email_owned', 409, {}, { email: 'auth.email_owned' });
  }
  const token = await repo.createUserToken(deps.app.db.db, user.id, 'mail_change', deps.app.clock.now(), TOKEN_TTL.mail_change, newEmail.trim());
  await sendAccountMail(deps, caller.site, user, 'mail_change', `${caller.origin}/mail-change/do?token=${token}`, newEmail.trim());
}

export async function confirmMailChange(deps: AccountsDeps, site: Site, token: string): Promise<User> {
  const { app } = deps;
  const now = app.clock.now();
  const changed = await app.db.db.transaction().execute(async (trx) => {
    const row = await repo.consumeUserToken(trx, token, 'mail_change', site.id, now);
    const user = row ? await repo.findUserById(trx, row.user_id) : undefined;
    if (!row?.payload || !user || user.deleted_at !== null) throw new AccountError('link_invalid', 'auth.link_invalid', 410);
    const email = normalizeEmail(row.payload);
    if (await repo.findUserByEmail(trx, user.site_id, email)) throw new AccountError('email_owned', 'auth.email_owned', 409);
    await trx.updateTable('users').set({ email: row.payload, email_normalized: email }).where('id', '=', user.id).execute();
    return (await repo.findUserById(trx, user.id)) as User;
  });
  await forgetSessions(deps, changed.id);
  return changed;
}

export interface SettingsChange {
  email_prefs?: Partial<Record<NotificationType, boolean>>;
  push_prefs?: Partial<Record<NotificationType, boolean>>;
  invisible?: boolean;
  show_explicit_images?: boolean;
}

export async function updateSettings(deps: AccountsDeps, user: User, change: SettingsChange) {
  const db = deps.app.db.db;
  await db.transaction().execute(async (trx) => {
    const set: { email_prefs?: string; push_prefs?: string; show_explicit_images?: number } = {};
    if (change.email_prefs) set.email_prefs = JSON.stringify({ ...parsePrefs(user.email_prefs), ...change.email_prefs });
    if (change.push_prefs) set.push_prefs = JSON.stringify({ ...parsePrefs(user.push_prefs), ...change.push_prefs });
    if (change.show_explicit_images !== undefined) set.show_explicit_images = change.show_explicit_images ? 1 : 0;
    if (Object.keys(set).length) await trx.updateTable('users').set(set).where('id', '=', user.id).execute();
    if (change.invisible !== undefined) {
      await trx.updateTable('profiles').set({ invisible: change.invisible ? 1 : 0 }).where('user_id', '=', user.id).execute();
    }
  });
  await forgetSessions(deps, user.id);
}

export function listNotifications(deps: AccountsDeps, user: User) {
  return deps.app.db.db
    .selectFrom('notifications')
    .select(['id', 'type', 'payload', 'created_at', 'read_at'])
    .where('user_id', '=', user.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute()
    .then((rows) => rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown>, created_at: new Date(r.created_at).toISOString() })));
}

/** Deletes the account at once (hidden everywhere, sessions ended) and mails a reactivation link valid 14 days. */
export async function deleteAccount(deps: AccountsDeps, caller: Caller, user: User, password: string) {
  if (!(await verifyPassword(user.password_hash, password))) {
    throw new AccountError('wrong_password', 'auth.check_old_password', 400, {}, { password: 'auth.check_old_password' });
  }
  const db = deps.app.db.db;
  const now = deps.app.clock.now();
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ deleted_at: now }).where('id', '=', user.id).execute();
    await trx.updateTable('profiles').set({ status: 'deleted' }).where('user_id', '=', user.id).execute();
    await repo.deleteUserSessions(trx, user.id);
  });
  await forgetSessions(deps, user.id);
  const token = await repo.createUserToken(db, user.id, 'reactivate', now, TOKEN_TTL.reactivate);
  await sendAccountMail(deps, caller.site, user, 'reactivate', `${caller.origin}/api/reactivate.php?token=${token}`);
}

/** Restores a deleted account from its link within the window, and logs it in. */
export async function reactivate(deps: AccountsDeps, caller: Caller, token: string): Promise<{ user: User; token: string }> {
  const { app } = deps;
  const now = app.clock.now();
  const user = await app.db.db.transaction().execute(async (trx) => {
    const row = await repo.consumeUserToken(trx, token, 'reactivate', caller.site.id, now);
    const found = row ? await repo.findUserById(trx, row.user_id) : undefined;
    if (!found || found.deleted_at === null || found.erased_at !== null || now - found.deleted_at > TOKEN_TTL.reactivate) {
      throw new AccountError('link_invalid', 'auth.link_invalid', 410);
    }
    await trx.updateTable('users').set({ deleted_at: null }).where('id', '=', found.id).execute();
    await trx.updateTable('profiles').set({ status: found.status === 'confirmed' ? 'active' : 'disabled' }).where('user_id', '=', found.id).execute();
    return found;
  });
  await forgetSessions(deps, user.id);
  refuseBanned(user, now);
  return { user, token: await repo.createSession(app.db.db, user.id, now, SESSION_TTL_MS, caller.userAgent ?? null) };
}

/**
 * Erases, for good, the personal data of accounts deleted more than 14 days ago, stored objects
 * (photos, chat images) first: an account whose objects could not be deleted stays for the next
 * run. Returns how many were erased.
 */
export async function eraseExpiredAccounts(app: AppContext): Promise<number> {
  const db = app.db.db;
  const cutoff = app.clock.now() - TOKEN_TTL.reactivate;
  const due = await db.selectFrom('users').select('id').where('deleted_at', '<', cutoff).where('erased_at', 'is', null).execute();
  const erased: number[] = [];
  for (const { id } of due) {
    const profiles = await db.selectFrom('profiles').select('id').where('user_id', '=', id).execute();
    try {
      await deleteProfileObjects(app, profiles.map((p) => p.id));
    } catch (err) {
      app.logger.error({ err, user: id }, 'erasure waits: the stored objects could not be deleted');
      continue;
    }
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('profiles').where('user_id', '=', id).execute();
      await trx.deleteFrom('sessions').where('user_id', '=', id).execute();
      await trx.deleteFrom('user_tokens').where('user_id', '=', id).execute();
      await trx.deleteFrom('notifications').where('user_id', '=', id).execute();
      await trx.deleteFrom('mail_digests').where('user_id', '=', id).execute();
      await trx
        .updateTable('users')
        .set({
          email: `erased-${id}@invalid`, email_normalized: `erased-${id}@invalid`, password_hash: null, tracking: null,
          signup_message: null, target_profile_id: null, erased_at: app.clock.now(),
        })
        .where('id', '=', id)
        .execute();
    });
    erased.push(id);
  }
  if (erased.length) await app.sessions.invalidate({ users: erased });
  return erased.length;
}

/** Everything we hold about a member, for the data download. */
export async function exportData(deps: AccountsDeps, user: User) {
  const db = deps.app.db.db;
  const profile = await repo.findProfileOfUser(db, user.id);
  const interests = profile ? await db.selectFrom('profile_interests').select('interest').where('profile_id', '=', profile.id).execute() : [];
  const photos = profile ? await db.selectFrom('photos').select(['filename', 'status', 'is_main', 'created_at']).where('profile_id', '=', profile.id).execute() : [];
  const sessions = await db.selectFrom('sessions').select(['created_at', 'expires_at', 'user_agent']).where('user_id', '=', user.id).execute();
  const ledger = await db.selectFrom('credit_ledger').select(['delta', 'reason', 'balance_after', 'created_at']).where('user_id', '=', user.id).execute();
  const { password_hash: _hash, email_normalized: _norm, ...account } = user;
  return {
    exported_at: new Date(deps.app.clock.now()).toISOString(),
    account: { ...account, email_prefs: parsePrefs(user.email_prefs), push_prefs: parsePrefs(user.push_prefs), tracking: user.tracking ? JSON.parse(user.tracking) : null },
    profile,
    interests: interests.map((i) => i.interest),
    photos,
    sessions,
    credit_ledger: ledger,
    notifications: await listNotifications(deps, user),
  };
}

/** Affiliate API: creates an account without a password and returns the link that finishes it. */
export async function createApiSignup(deps: AccountsDeps, caller: Caller, input: { email: string; tracking?: Record<string, string> }): Promise<string> {
  const db = deps.app.db.db;
  const email = normalizeEmail(input.email);
  if (!v.is(v.pipe(v.string(), v.email()), email)) throw new AccountError('invalid_email', 'auth.invalid_email', 400, {}, { email: 'auth.invalid_email' });
  if (await repo.findUserByEmail(db, caller.site.id, email)) throw new AccountError('email_taken', 'auth.account_exists', 409);
  const now = deps.app.clock.now();
  const user = await db
    .insertInto('users')
    .values({
      site_id: caller.site.id, email: input.email.trim(), email_normalized: email, password_hash: null, status: 'not_confirmed', role: 'member',
      credits: 0, paid_user: 0, language: caller.locale, email_prefs: JSON.stringify(allOn()), push_prefs: JSON.stringify(allOn()),
      tracking: input.tracking ? JSON.stringify(input.tracking) : null, signup_message: null, target_profile_id: null, api_signup: 1,
      created_at: now, confirmed_at: null, deleted_at: null, erased_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const token = await repo.createUserToken(db, user.id, 'complete_signup', now, TOKEN_TTL.complete_signup);
  return `${caller.origin}/complete-signup?token=${token}&api_signup_complete=1`;
}

/** Finishes an account created through the affiliate API: name, birth date, password; logs it in. */
export async function completeSignup(
  deps: AccountsDeps, caller: Caller, input: { token: string; name: string; password: string; date_of_birth: string },
): Promise<{ user: User; token: string }> {
  const { app } = deps;
  const now = app.clock.now();
  checkPasswordStrength(input.password, [input.name, caller.site.name]);
  const passwordHash = await hashPassword(input.password);
  const user = await app.db.db.transaction().execute(async (trx) => {
    const row = await repo.consumeUserToken(trx, input.token, 'complete_signup', caller.site.id, now);
    const found = row ? await repo.findUserById(trx, row.user_id) : undefined;
    if (!found || found.site_id !== caller.site.id || found.password_hash !== null) throw new AccountError('link_invalid', 'auth.link_invalid', 410);
    if (input.name.toLowerCase() === found.email_normalized) throw new AccountError('invalid_input', 'auth.username_is_email', 400, {}, { name: 'auth.username_is_email' });
    await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', found.id).execute();
    await trx
      .insertInto('profiles')
      .values({
        site_id: found.site_id, user_id: found.id, name: input.name.trim(), gender: 'male', sexuality: caller.site.niche === 7 ? 'gay' : 'hetero',
        birth_date: input.date_of_birth, country: caller.site.countries[0], region: null, city: null, hair_color: null, eye_color: null,
        body_type: null, relationship_status: null, tattoos: null, about: null, fictional: 0, invisible: 0, status: 'disabled',
        last_active_at: now, created_at: now,
      })
      .execute();
    return found;
  });
  const session = await repo.createSession(app.db.db, user.id, now, SESSION_TTL_MS, caller.userAgent ?? null);
  await sendActivation(deps, caller, user);
  return { user, token: session };
}
