import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import { type Permission, type StaffRole, can } from '../../shared/admin.contract';
import type { Site } from '../../shared/site.schema';
import type { AppContext } from '../app-context';
import { hashToken, normalizeEmail } from '../accounts/tokens';
import type { Database, User } from '../db/schema';
import { RateLimitError } from '../limits/abuse-limits';
import { RuleError } from '../rule-error';

type Q = Kysely<Database> | Transaction<Database>;

/** A staff refusal (translated by the route). */
export class StaffError extends RuleError {}

export const TOTP_PERIOD_S = 30;
export const RECOVERY_CODE_COUNT = 10;

/** The staff member behind a request: who, which role, and whether this session passed the second factor. */
export interface StaffCaller {
  userId: number;
  email: string;
  siteId: string;
  role: StaffRole;
  enrolled: boolean;
  verified: boolean;
  ip: string | null;
}

/** The staff account of a member on this site (a staff right never crosses sites), or null. */
export async function findStaff(app: AppContext, site: Site, user: User | null, sessionToken: string | null, ip: string | null): Promise<StaffCaller | null> {
  if (!user || user.site_id !== site.id || user.role !== 'staff') return null;
  const db = app.db.db;
  const account = await db.selectFrom('staff_accounts').selectAll().where('user_id', '=', user.id).where('site_id', '=', site.id).executeTakeFirst();
  if (!account) return null;
  const verified = sessionToken
    ? Boolean(await db.selectFrom('staff_sessions').select('user_id').where('token_hash', '=', hashToken(sessionToken)).where('user_id', '=', user.id).executeTakeFirst())
    : false;
  const enrolled = account.totp_enabled_at !== null;
  return { userId: user.id, email: user.email, siteId: site.id, role: account.role, enrolled, verified: enrolled && verified, ip };
}

/** Throws unless the staff member passed the second factor and the role allows it. */
export function requirePermission(staff: StaffCaller | null, permission: Permission): StaffCaller {
  if (!staff) throw new StaffError('forbidden', 'admin.error.forbidden', 403);
  if (!staff.verified) throw new StaffError('staff_2fa_required', 'admin.error.two_factor_required', 403);
  if (!can(staff.role, permission)) throw new StaffError('forbidden', 'admin.error.forbidden', 403);
  return staff;
}

/** Writes one audit row (in the caller's transaction, so the action and its record commit together). */
export async function audit(
  db: Q,
  staff: StaffCaller,
  now: number,
  entry: { action: string; targetType?: string; targetId?: number | null; reason?: string | null; before?: unknown; after?: unknown },
) {
  await db
    .insertInto('staff_audit_log')
    .values({
      site_id: staff.siteId, staff_user_id: staff.userId, staff_email: staff.email, staff_role: staff.role, action: entry.action,
      target_type: entry.targetType ?? null, target_id: entry.targetId ?? null, reason: entry.reason ?? null,
      before: entry.before === undefined ? null : JSON.stringify(entry.before),
      after: entry.after === undefined ? null : JSON.stringify(entry.after),
      ip: staff.ip, created_at: now,
    })
    .execute();
}

function totpFor(site: Site, email: string, secret: string) {
  return new OTPAuth.TOTP({ issuer: site.name, label: email, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_S, secret: OTPAuth.Secret.fromBase32(secret) });
}

/** Starts (or restarts) enrolment: a new secret, its otpauth:// URI and a QR code (SVG) for the app. */
export async function startEnrolment(app: AppContext, site: Site, staff: StaffCaller) {
  if (staff.enrolled) throw new StaffError('already_enrolled', 'admin.error.already_enrolled', 409);
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  await app.db.db.updateTable('staff_accounts').set({ totp_pending_secret: secret }).where('user_id', '=', staff.userId).execute();
  const uri = totpFor(site, staff.email, secret).toString();
  const qr_svg = await QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return { secret, uri, qr_svg };
}

/** The time step a code matches (±1 step for clock drift), or null. */
function matchingStep(site: Site, email: string, secret: string, code: string, now: number): number | null {
  const delta = totpFor(site, email, secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

async function guardAttempts(app: AppContext, staff: StaffCaller) {
  const block = await app.limits.blockedFor(`staff2fa:${staff.userId}`, staff.ip);
  if (block) throw new RateLimitError('admin.error.too_many_codes', Math.ceil(block.ms / 1000), 'blocked');
}
async function failAttempt(app: AppContext, staff: StaffCaller): Promise<never> {
  const block = await app.limits.recordFailure(`staff2fa:${staff.userId}`, staff.ip);
  if (block) throw new RateLimitError('admin.error.too_many_codes', Math.ceil(block.ms / 1000), 'blocked');
  throw new StaffError('code_invalid', 'admin.error.code_invalid', 400, {}, { code: 'admin.error.code_invalid' });
}

function recoveryHash(code: string) {
  return createHash('sha256').update(code.replace(/[^a-z0-9]/gi, '').toLowerCase()).digest('hex');
}
function newRecoveryCode() {
  const raw = randomBytes(8).toString('hex');
  return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8, 12)}-${raw.slice(12)}`;
}

async function markVerified(db: Q, staff: StaffCaller, sessionToken: string, now: number) {
  const tokenHash = hashToken(sessionToken);
  await db.deleteFrom('staff_sessions').where('token_hash', '=', tokenHash).execute();
  await db.insertInto('staff_sessions').values({ token_hash: tokenHash, user_id: staff.userId, verified_at: now }).execute();
}

/** Confirms enrolment with a first code: TOTP on, recovery codes made (shown once, stored hashed), session verified. */
export async function confirmEnrolment(app: AppContext, site: Site, staff: StaffCaller, sessionToken: string, code: string): Promise<string[]> {
  if (staff.enrolled) throw new StaffError('already_enrolled', 'admin.error.already_enrolled', 409);
  await guardAttempts(app, staff);
  const db = app.db.db;
  const account = await db.selectFrom('staff_accounts').selectAll().where('user_id', '=', staff.userId).executeTakeFirstOrThrow();
  if (!account.totp_pending_secret) throw new StaffError('not_started', 'admin.error.enrol_first', 409);
  const now = app.clock.now();
  const step = matchingStep(site, staff.email, account.totp_pending_secret, code, now);
  if (step === null) return failAttempt(app, staff);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('staff_accounts')
      .set({ totp_secret: account.totp_pending_secret, totp_pending_secret: null, totp_enabled_at: now, totp_last_step: step })
      .where('user_id', '=', staff.userId).execute();
    await trx.deleteFrom('staff_recovery_codes').where('user_id', '=', staff.userId).execute();
    await trx.insertInto('staff_recovery_codes').values(codes.map((c) => ({ user_id: staff.userId, code_hash: recoveryHash(c), used_at: null }))).execute();
    await markVerified(trx, staff, sessionToken, now);
    await audit(trx, { ...staff, verified: true }, now, { action: 'totp_enrolled', targetType: 'staff', targetId: staff.userId });
  });
  await app.limits.reset(`staff2fa:${staff.userId}`);
  return codes;
}

/** Second step of a staff login: a current TOTP code (each accepted once) or an unused recovery code. */
export async function verifySecondFactor(app: AppContext, site: Site, staff: StaffCaller, sessionToken: string, input: { code: string } | { recovery_code: string }) {
  if (!staff.enrolled) throw new StaffError('not_enrolled', 'admin.error.enrol_first', 409);
  await guardAttempts(app, staff);
  const db = app.db.db;
  const now = app.clock.now();
  const account = await db.selectFrom('staff_accounts').selectAll().where('user_id', '=', staff.userId).executeTakeFirstOrThrow();
  const ok = await db.transaction().execute(async (trx) => {
    if ('code' in input) {
      const step = matchingStep(site, staff.email, account.totp_secret as string, input.code, now);
      if (step === null) return false;
      // Replays of an accepted code (or an older one) are refused; the update is the guard under races.
      const claimed = await trx.updateTable('staff_accounts').set({ totp_last_step: step }).where('user_id', '=', staff.userId)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)])).returning('user_id').executeTakeFirst();
      if (!claimed) return false;
    } else {
      const used = await trx.updateTable('staff_recovery_codes').set({ used_at: now }).where('user_id', '=', staff.userId)
        .where('code_hash', '=', recoveryHash(input.recovery_code)).where('used_at', 'is', null).returning('id').executeTakeFirst();
      if (!used) return false;
    }
    await markVerified(trx, staff, sessionToken, now);
    await audit(trx, { ...staff, verified: true }, now, { action: 'code' in input ? 'login_totp' : 'login_recovery_code', targetType: 'staff', targetId: staff.userId });
    return true;
  });
  if (!ok) return failAttempt(app, staff);
  await app.limits.reset(`staff2fa:${staff.userId}`);
}

/** Makes an account staff of its site with a role (CLI and STAFF_EMAILS); a new role keeps its TOTP. */
export async function grantStaffRole(app: AppContext, siteId: string, email: string, role: StaffRole): Promise<boolean> {
  const db = app.db.db;
  const user = await db.selectFrom('users').select(['id', 'email', 'role']).where('site_id', '=', siteId).where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
  if (!user) return false;
  const now = app.clock.now();
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ role: 'staff' }).where('id', '=', user.id).execute();
    const existing = await trx.selectFrom('staff_accounts').select('role').where('user_id', '=', user.id).executeTakeFirst();
    if (existing) await trx.updateTable('staff_accounts').set({ role }).where('user_id', '=', user.id).execute();
    else await trx.insertInto('staff_accounts').values({ user_id: user.id, site_id: siteId, role, totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null, created_at: now }).execute();
    if (existing?.role !== role) {
      await trx.insertInto('staff_audit_log').values({
        site_id: siteId, staff_user_id: 0, staff_email: 'cli', staff_role: 'cli', action: 'staff_role_set', target_type: 'staff', target_id: user.id,
        reason: null, before: existing ? JSON.stringify({ role: existing.role }) : null, after: JSON.stringify({ role }), ip: null, created_at: now,
      }).execute();
    }
  });
  // Running processes drop their cached session of this member (at once with REDIS_URL, else within SESSION_CACHE_MS).
  await app.sessions.invalidate({ users: [user.id] });
  return true;
}

/** Takes the staff role away (or only the second factor, so the next login enrols again). */
export async function revokeStaff(app: AppContext, siteId: string, email: string, what: 'role' | 'totp'): Promise<boolean> {
  const db = app.db.db;
  const user = await db.selectFrom('users').select('id').where('site_id', '=', siteId).where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
  if (!user) return false;
  const now = app.clock.now();
  await db.transaction().execute(async (trx) => {
    if (what === 'role') {
      await trx.updateTable('users').set({ role: 'member' }).where('id', '=', user.id).execute();
      await trx.deleteFrom('staff_accounts').where('user_id', '=', user.id).execute();
    } else {
      await trx.updateTable('staff_accounts').set({ totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null }).where('user_id', '=', user.id).execute();
    }
    await trx.deleteFrom('staff_recovery_codes').where('user_id', '=', user.id).execute();
    await trx.deleteFrom('staff_sessions').where('user_id', '=', user.id).execute();
    await trx.insertInto('staff_audit_log').values({
      site_id: siteId, staff_user_id: 0, staff_email: 'cli', staff_role: 'cli', action: what === 'role' ? 'staff_revoked' : 'totp_reset',
      target_type: 'staff', target_id: user.id, reason: null, before: null, after: null, ip: null, created_at: now,
    }).execute();
  });
  // Running processes drop their cached session of this member (at once with REDIS_URL, else within SESSION_CACHE_MS).
  await app.sessions.invalidate({ users: [user.id] });
  return true;
}

/** The audit log of one site, newest first (read-only: there is no way to change it). */
export async function listAudit(app: AppContext, siteId: string, filter: { action?: string; before?: number; limit?: number }) {
  let q = app.db.db.selectFrom('staff_audit_log').selectAll().where('site_id', '=', siteId);
  if (filter.action) q = q.where('action', '=', filter.action);
  if (filter.before) q = q.where('id', '<', filter.before);
  const rows = await q.orderBy('id', 'desc').limit(filter.limit ?? 100).execute();
  return rows.map((r) => ({ ...r, before: r.before ? JSON.parse(r.before) : null, after: r.after ? JSON.parse(r.after) : null }));
}
