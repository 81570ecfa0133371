import * as v from 'valibot';
import { Reason } from './admin.contract';
import { IdSchema } from './ids';

/**
 * Chat safety (issue 26): signals on messages and accounts, what members see, the staff queue.
 * Text flags are found as a message is sent; `spam` when the same text goes to many members;
 * `explicit_image` is the image classifier's (a later job) — the queue takes any kind below.
 */
export const TEXT_FLAGS = ['off_platform_contact', 'money_request', 'external_link'] as const;
export type TextFlag = (typeof TEXT_FLAGS)[number];
export const SIGNAL_KINDS = [...TEXT_FLAGS, 'spam', 'explicit_image'] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** Flags the sender is asked "Are you sure?" about before the message goes out. */
export const CONFIRM_FLAGS: readonly TextFlag[] = ['off_platform_contact', 'money_request'];

/** The same text to this many different members within SPAM_WINDOW_MS is spam, held until staff review it. */
export const SPAM_RECIPIENTS = 8;
export const SPAM_WINDOW_MS = 3600_000;
/** Signals are kept this long (pruned by the job runner). */
export const SIGNAL_RETENTION_MS = 90 * 86_400_000;

/** The send answer (409) when the text needs the sender's "send anyway". */
export const CONFIRM_ERROR = 'safety_confirm';

/** Staff actions on a queue entry (one account); each is audited. */
export const SAFETY_ACTIONS = ['dismiss', 'warn', 'suspend', 'ban'] as const;
export type SafetyAction = (typeof SAFETY_ACTIONS)[number];
export const SafetyActionSchema = v.object({
  user_id: IdSchema,
  action: v.picklist(SAFETY_ACTIONS, 'admin.error.invalid'),
  reason: Reason,
  days: v.optional(v.pipe(v.number('admin.error.days'), v.integer('admin.error.days'), v.minValue(1, 'admin.error.days'), v.maxValue(365, 'admin.error.days'))),
});
export type SafetyActionInput = v.InferOutput<typeof SafetyActionSchema>;
