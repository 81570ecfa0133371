import * as v from 'valibot';
import { MIN_AGE } from './constants';
import { LOCALES } from './locales';
import { BODY_TYPES, EYE_COLORS, GENDERS, HAIR_COLORS, RELATIONSHIP_STATUSES, SEXUALITIES, TATTOO_OPTIONS, PROFILE_NOTE_MAX } from './profile-options';
import { IdSchema } from './ids';
import { TRACKING_NETWORK, TRACKING_VALUE } from './tracking';

/** Notification types (SPEC §3); each can be switched per channel. */
export const NOTIFICATION_TYPES = [
  'new_conversations', 'new_messages', 'like', 'unread_message_reminders', 'promotions', 'weekly_updates', 'news', 'reminders',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const NAME_MIN = 3;
export const NAME_MAX = 32;

/** Messages are catalog keys; each side translates them. */
const Email = v.pipe(v.string('auth.invalid_email'), v.trim(), v.maxLength(254, 'auth.invalid_email'), v.email('auth.invalid_email'));
const Password = v.pipe(
  v.string('auth.password_too_short'),
  v.minLength(PASSWORD_MIN, 'auth.password_too_short'),
  v.maxLength(PASSWORD_MAX, 'auth.password_too_long'),
);

/** Age in whole years on a date (UTC). */
export function ageOn(dateOfBirth: string, now: number): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number);
  const today = new Date(now);
  let age = today.getUTCFullYear() - y;
  if (today.getUTCMonth() + 1 < m || (today.getUTCMonth() + 1 === m && today.getUTCDate() < d)) age--;
  return age;
}

/** A real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value && date.getUTCFullYear() >= 1900;
}

/** Date of birth: a real date, and at least MIN_AGE years ago at `now`. */
export function DateOfBirth(now: () => number) {
  return v.pipe(
    v.string('auth.dob_invalid'),
    v.check(isCalendarDate, 'auth.dob_invalid'),
    v.check((value) => ageOn(value, now()) >= MIN_AGE, 'auth.dob_hint'),
    v.check((value) => ageOn(value, now()) <= 110, 'auth.dob_invalid'),
  );
}

const Name = v.pipe(
  v.string('auth.username_invalid'),
  v.trim(),
  v.minLength(NAME_MIN, 'auth.username_invalid'),
  v.maxLength(NAME_MAX, 'auth.username_invalid'),
  v.regex(/^[^<>"]+$/u, 'auth.username_invalid'),
  v.check((value) => !value.startsWith('@'), 'auth.username_at'),
);

const Tracking = v.optional(
  v.object({
    network: v.optional(v.pipe(v.string(), v.regex(TRACKING_NETWORK))),
    ref: v.optional(v.pipe(v.string(), v.regex(TRACKING_NETWORK))),
    sub1: v.optional(v.pipe(v.string(), v.regex(TRACKING_VALUE))),
    sub2: v.optional(v.pipe(v.string(), v.regex(TRACKING_VALUE))),
    sub3: v.optional(v.pipe(v.string(), v.regex(TRACKING_VALUE))),
  }),
);

/** POST /api/signup.php — step 0 of the wizard. */
export function SignupSchema(now: () => number) {
  return v.pipe(
    v.object({
      email: Email,
      name: Name,
      password: Password,
      password_repeat: v.optional(v.string()),
      date_of_birth: DateOfBirth(now),
      gender: v.optional(v.picklist(GENDERS, 'error.invalid_input')),
      signup_message: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000, 'error.invalid_input'))),
      target_profile_id: v.optional(IdSchema),
      tracking: Tracking,
      language: v.optional(v.picklist(LOCALES)),
    }),
    v.forward(v.check((i) => i.name.toLowerCase() !== i.email.toLowerCase(), 'auth.username_is_email'), ['name']),
    v.forward(v.check((i) => i.password_repeat === undefined || i.password_repeat === i.password, 'auth.passwords_differ'), ['password_repeat']),
  );
}
export type SignupInput = v.InferOutput<ReturnType<typeof SignupSchema>>;

/** POST /api/user.php — log in. */
export const LoginSchema = v.object({
  email: v.pipe(v.string('auth.login_failed'), v.trim(), v.maxLength(254, 'auth.login_failed')),
  password: v.pipe(v.string('auth.login_failed'), v.maxLength(PASSWORD_MAX, 'auth.login_failed')),
});

/** PUT /api/user.php — fields a member may change on the account itself. */
export const UserUpdateSchema = v.object({ language: v.picklist(LOCALES, 'error.invalid_input') });

export const ResetRequestSchema = v.object({ email: Email });
export const ResetDoSchema = v.pipe(
  v.object({ token: v.pipe(v.string(), v.maxLength(100)), password: Password, password_repeat: v.optional(v.string()) }),
  v.forward(v.check((i) => i.password_repeat === undefined || i.password_repeat === i.password, 'auth.passwords_differ'), ['password_repeat']),
);
export const TokenSchema = v.object({ token: v.pipe(v.string(), v.minLength(10), v.maxLength(100)) });

export const ChangePasswordSchema = v.pipe(
  v.object({ old_password: v.pipe(v.string(), v.maxLength(PASSWORD_MAX)), password: Password, password_repeat: v.optional(v.string()) }),
  v.forward(v.check((i) => i.password_repeat === undefined || i.password_repeat === i.password, 'auth.passwords_differ'), ['password_repeat']),
);

export const MailChangeSchema = v.object({
  email: v.pipe(v.string('auth.invalid_new_email'), v.trim(), v.maxLength(254, 'auth.invalid_new_email'), v.email('auth.invalid_new_email')),
  password: v.pipe(v.string(), v.maxLength(PASSWORD_MAX)),
});

const Prefs = v.record(v.picklist(NOTIFICATION_TYPES), v.boolean());
export const AccountSettingsSchema = v.object({
  email_prefs: v.optional(Prefs),
  push_prefs: v.optional(Prefs),
  invisible: v.optional(v.boolean()),
  show_explicit_images: v.optional(v.boolean()),
});

export const DeleteAccountSchema = v.object({
  password: v.pipe(v.string(), v.maxLength(PASSWORD_MAX)),
  reason: v.optional(v.pipe(v.string(), v.maxLength(500))),
});

export const CompleteSignupSchema = (now: () => number) =>
  v.object({ token: v.pipe(v.string(), v.maxLength(100)), name: Name, password: Password, date_of_birth: DateOfBirth(now) });

/** PATCH /api/profile.php — the about-me steps of the wizard (and the profile screen later). */
export const ProfileAboutSchema = v.object({
  gender: v.optional(v.picklist(GENDERS)),
  sexuality: v.optional(v.picklist(SEXUALITIES)),
  country: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/))),
  region: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
  city: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(96)))),
  hair_color: v.optional(v.picklist(HAIR_COLORS)),
  eye_color: v.optional(v.picklist(EYE_COLORS)),
  body_type: v.optional(v.picklist(BODY_TYPES)),
  relationship_status: v.optional(v.picklist(RELATIONSHIP_STATUSES)),
  tattoos: v.optional(v.picklist(TATTOO_OPTIONS)),
  /** A profile note; only on sites that show it (visible_profile_notes). Empty clears it. */
  about: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(PROFILE_NOTE_MAX, 'myprofile.error.note_too_long')))),
});

/** Turns valibot issues into { field: catalog key }, first issue per field. */
export function fieldErrors(issues: v.BaseIssue<unknown>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const field = v.getDotPath(issue) ?? '_';
    const key = issue.message.includes('.') && !issue.message.includes(' ') ? issue.message : 'error.invalid_input';
    out[field.split('.')[0]] ??= key;
  }
  return out;
}
