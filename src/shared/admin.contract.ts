import * as v from 'valibot';
import { IdSchema } from './ids';

/** Staff roles of the operator console (issue 11). */
export const STAFF_ROLES = ['admin', 'moderator', 'operator', 'finance'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * Least privilege: what each role may do. Operators never see members' e-mail addresses or
 * payments; moderators never see money; finance never judges conduct.
 */
export const PERMISSIONS = {
  dashboard: ['admin', 'finance'],
  members: ['admin', 'moderator', 'finance'],
  member_money: ['admin', 'finance'],
  member_conduct: ['admin', 'moderator'],
  member_delete: ['admin'],
  moderation: ['admin', 'moderator'],
  fictional: ['admin', 'operator'],
  inbox: ['admin', 'operator'],
  payments: ['admin', 'finance'],
  discounts: ['admin', 'finance'],
  audit: ['admin'],
} as const satisfies Record<string, readonly StaffRole[]>;
export type Permission = keyof typeof PERMISSIONS;

export function can(role: StaffRole, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly StaffRole[]).includes(role);
}

export function permissionsOf(role: StaffRole): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((p) => can(role, p));
}

/** Console sections in navigation order with the permission each needs. */
export const ADMIN_SECTIONS = [
  { path: '/admin', key: 'dashboard', permission: 'dashboard' },
  { path: '/admin/members', key: 'members', permission: 'members' },
  { path: '/admin/moderation', key: 'moderation', permission: 'moderation' },
  { path: '/admin/safety', key: 'safety', permission: 'moderation' },
  { path: '/admin/inbox', key: 'inbox', permission: 'inbox' },
  { path: '/admin/fictional', key: 'fictional', permission: 'fictional' },
  { path: '/admin/payments', key: 'payments', permission: 'payments' },
  { path: '/admin/discounts', key: 'discounts', permission: 'discounts' },
  { path: '/admin/audit', key: 'audit', permission: 'audit' },
] as const satisfies readonly { path: string; key: string; permission: Permission }[];

export const ADMIN_PATHS = {
  me: 'admin/me.php',
  enrol: 'admin/totp-enrol.php',
  confirm: 'admin/totp-confirm.php',
  verify: 'admin/verify.php',
  members: 'admin/members.php',
  member: 'admin/member.php',
  memberAction: 'admin/member-action.php',
  fictional: 'admin/fictional.php',
  inbox: 'admin/inbox.php',
  inboxConversation: 'admin/inbox-conversation.php',
  inboxReply: 'admin/inbox-reply.php',
  inboxClaim: 'admin/inbox-claim.php',
  inboxNotes: 'admin/inbox-notes.php',
  payments: 'admin/payments.php',
  discounts: 'admin/discounts.php',
  stats: 'admin/stats.php',
  dashboard: 'admin/dashboard.php',
  audit: 'admin/audit.php',
  safety: 'admin/safety.php',
  safetyAction: 'admin/safety-action.php',
} as const;

const Id = IdSchema;
export const TotpCode = v.pipe(v.string(), v.trim(), v.regex(/^\d{6}$/, 'admin.error.code_format'));
export const VerifySchema = v.union([
  v.object({ code: TotpCode }),
  v.object({ recovery_code: v.pipe(v.string(), v.trim(), v.minLength(8, 'admin.error.code_format'), v.maxLength(32, 'admin.error.code_format')) }),
]);
export const ConfirmSchema = v.object({ code: TotpCode });

/** Every action on a member needs a reason the audit log keeps. */
export const Reason = v.pipe(v.optional(v.string('admin.error.reason_required'), ''), v.trim(), v.minLength(3, 'admin.error.reason_required'), v.maxLength(500, 'admin.error.reason_too_long'));
const Confirmed = v.pipe(v.optional(v.boolean('admin.error.confirm_required'), false), v.value(true, 'admin.error.confirm_required'));
/** Ban, refund and delete: the ones that cannot simply be undone. */
export const DESTRUCTIVE_ACTIONS = ['ban', 'refund', 'delete'] as const;
const Credits = v.pipe(v.number('admin.error.amount'), v.integer('admin.error.amount'), v.minValue(1, 'admin.error.amount'), v.maxValue(100_000, 'admin.error.amount'));

export const MemberActionSchema = v.variant('action', [
  v.object({ action: v.literal('grant_credits'), user_id: Id, reason: Reason, amount: Credits }),
  v.object({ action: v.literal('take_credits'), user_id: Id, reason: Reason, amount: Credits }),
  v.object({
    action: v.literal('refund'), user_id: Id, reason: Reason, payment_id: Id, confirmed: Confirmed,
    /** Cents; default all that is left. */
    amount: v.optional(v.pipe(v.number('admin.error.amount'), v.integer('admin.error.amount'), v.minValue(1, 'admin.error.amount'))),
  }),
  v.object({ action: v.literal('block_direct_debit'), user_id: Id, reason: Reason }),
  v.object({ action: v.literal('suspend'), user_id: Id, reason: Reason, days: v.pipe(v.number('admin.error.days'), v.integer('admin.error.days'), v.minValue(1, 'admin.error.days'), v.maxValue(365, 'admin.error.days')) }),
  // Destructive actions need an explicit confirmation (the console asks, naming the member).
  v.object({ action: v.literal('ban'), user_id: Id, reason: Reason, confirmed: Confirmed }),
  v.object({ action: v.literal('lift_ban'), user_id: Id, reason: Reason }),
  v.object({ action: v.literal('end_sessions'), user_id: Id, reason: Reason }),
  v.object({ action: v.literal('reset_login_limits'), user_id: Id, reason: Reason }),
  // Deleting also needs the member's name typed (checked against the account in members.service).
  v.object({ action: v.literal('delete'), user_id: Id, reason: Reason, confirm_name: v.pipe(v.optional(v.string(), ''), v.trim(), v.minLength(1, 'admin.error.confirm_name')) }),
]);
export type MemberActionInput = v.InferOutput<typeof MemberActionSchema>;
export type MemberAction = MemberActionInput['action'];

export const ACTION_PERMISSION: Record<MemberAction, Permission> = {
  grant_credits: 'member_money',
  take_credits: 'member_money',
  refund: 'member_money',
  block_direct_debit: 'member_money',
  suspend: 'member_conduct',
  ban: 'member_conduct',
  lift_ban: 'member_conduct',
  end_sessions: 'member_conduct',
  reset_login_limits: 'member_conduct',
  delete: 'member_delete',
};

const Name = v.pipe(v.string('admin.error.name'), v.trim(), v.minLength(2, 'admin.error.name'), v.maxLength(40, 'admin.error.name'));
const BirthDate = v.pipe(v.string('admin.error.birth_date'), v.isoDate('admin.error.birth_date'));
export const FictionalProfileSchema = v.object({
  id: v.optional(Id),
  name: Name,
  gender: v.picklist(['male', 'female'], 'admin.error.gender'),
  sexuality: v.picklist(['hetero', 'gay', 'lesbian', 'bi'], 'admin.error.sexuality'),
  birth_date: BirthDate,
  country: v.pipe(v.string('admin.error.country'), v.regex(/^[A-Z]{2}$/, 'admin.error.country')),
  city: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(60, 'admin.error.city')))),
  about: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(2000, 'admin.error.about')))),
  status: v.optional(v.picklist(['active', 'disabled'], 'admin.error.invalid')),
});
export type FictionalProfileInput = v.InferOutput<typeof FictionalProfileSchema>;

export const InboxReplySchema = v.object({
  conversation_id: Id,
  text: v.pipe(v.string('admin.error.message_empty'), v.trim(), v.minLength(1, 'admin.error.message_empty'), v.maxLength(5000, 'admin.error.message_too_long')),
  client_id: v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9-]+$/)),
});

/** Claim (or renew) a conversation, or give it back. */
export const InboxClaimSchema = v.object({ conversation_id: Id, release: v.optional(v.boolean(), false) });
export const InboxNotesSchema = v.object({
  conversation_id: Id,
  notes: v.pipe(v.string('admin.error.notes_too_long'), v.maxLength(4000, 'admin.error.notes_too_long')),
});

export const DiscountCreateSchema = v.object({
  code: v.pipe(v.string('admin.error.code'), v.trim(), v.toUpperCase(), v.regex(/^[A-Z0-9_-]{3,32}$/, 'admin.error.code')),
  percentage: v.pipe(v.number('admin.error.percentage'), v.minValue(1, 'admin.error.percentage'), v.maxValue(90, 'admin.error.percentage')),
  country: v.optional(v.nullable(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/, 'admin.error.country')))),
  currency: v.optional(v.nullable(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'admin.error.currency')))),
  minimum_order_value: v.optional(v.pipe(v.number('admin.error.amount'), v.integer('admin.error.amount'), v.minValue(0, 'admin.error.amount')), 0),
  expires: v.optional(v.nullable(v.pipe(v.string(), v.isoDate('admin.error.expires')))),
  validity: v.optional(v.picklist(['once-per-user', 'unlimited'], 'admin.error.invalid'), 'once-per-user'),
  welcome: v.optional(v.boolean(), false),
  reason: Reason,
});
export const DiscountStatusSchema = v.object({ id: Id, status: v.picklist(['active', 'inactive'], 'admin.error.invalid'), reason: Reason });

export const STAT_METRICS = ['signups', 'activations', 'active_members', 'messages', 'likes', 'matches', 'revenue', 'refunds', 'funnel'] as const;
export type StatMetric = (typeof STAT_METRICS)[number];
/** Longest range a dashboard query may cover. */
export const STATS_MAX_DAYS = 366;
