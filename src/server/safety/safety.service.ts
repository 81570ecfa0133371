import type { Expression, Kysely, Transaction } from 'kysely';
import type { ChatMessage } from '../../shared/chat.contract';
import { isLocale } from '../../shared/locales';
import {
  CONFIRM_FLAGS, SIGNAL_RETENTION_MS, type SignalKind, SPAM_RECIPIENTS, SPAM_WINDOW_MS, TEXT_FLAGS, type TextFlag,
} from '../../shared/safety.contract';
import type { Database } from '../db/schema';
import { RuleError } from '../rule-error';
import { classifyText } from './classify';
import { fingerprint, near } from './fingerprint';

type Q = Kysely<Database> | Transaction<Database>;

/**
 * The safety check of a text send (issue 26), run by chat.service.ts `sendMessage`: the text's flags,
 * its spam fingerprint, and the verdict on both.
 */
export interface TextScreen {
  flags: TextFlag[];
  fingerprint: string | null;
}

/** What the classifiers see in a member's text, read in the member's language. */
export function screenText(text: string, language: string): TextScreen {
  return { flags: classifyText(text, isLocale(language) ? language : 'en'), fingerprint: fingerprint(text) };
}

/** The sender's recent fingerprints and the ones staff hold (`spamFactsQueries`). */
export interface SpamFacts {
  recent: { recipient_profile_id: number; fingerprint: string }[];
  held: { fingerprint: string | null }[];
}

/**
 * `held`: the text is near one staff have not reviewed yet (refused); `spam`: with this send it
 * reaches SPAM_RECIPIENTS different members within the window (delivered, and held from now on).
 */
export function spamVerdict(print: string | null, recipient: number, facts: SpamFacts): 'held' | 'spam' | null {
  if (print === null) return null;
  if (facts.held.some((h) => h.fingerprint !== null && near(h.fingerprint, print))) return 'held';
  const recipients = new Set(facts.recent.filter((r) => near(r.fingerprint, print)).map((r) => r.recipient_profile_id));
  recipients.add(recipient);
  return recipients.size >= SPAM_RECIPIENTS ? 'spam' : null;
}

/** A send the member must confirm ("Are you sure?") or that spam holds, refused before anything is written. */
export class SafetyRefusal extends RuleError {}

/** Throws the translated refusal of a text send: held spam, or an unconfirmed off-platform or money text. */
export function refuseUnconfirmed(screen: TextScreen, verdict: 'held' | 'spam' | null, confirmed: boolean, siteName: string) {
  if (verdict === 'held') throw new SafetyRefusal('spam_held', 'safety.spam_held', 403);
  if (confirmed) return;
  const asked = CONFIRM_FLAGS.filter((f) => screen.flags.includes(f));
  if (asked.length === 0) return;
  const key = asked.length > 1 ? 'safety.confirm_both' : asked[0] === 'money_request' ? 'safety.confirm_money' : 'safety.confirm_contact';
  throw new SafetyRefusal('safety_confirm', key, 409, { site: siteName });
}

/**
 * The sender's fingerprints of the window (by their profile) and the spam staff hold (by their user, the
 * signals' index), as subqueries: a send reads them with its other facts (chat.service.ts `sendFacts`).
 * `windowStart`: `spamWindowStart(now)`.
 */
export function spamFactsQueries(db: Q, sender: { userId: number | Expression<number>; profileId: number | Expression<number> }, windowStart: number) {
  return {
    recent: db.selectFrom('message_fingerprints').select(['recipient_profile_id', 'fingerprint'])
      .where('sender_profile_id', '=', sender.profileId).where('created_at', '>', windowStart),
    held: db.selectFrom('safety_signals').select('fingerprint')
      .where('user_id', '=', sender.userId).where('kind', '=', 'spam').where('status', '=', 'open'),
  };
}

/** Fingerprints sent after this moment count for the spam verdict. */
export const spamWindowStart = (now: number) => now - SPAM_WINDOW_MS;

/** The safety signals a sent text raises: its flags, and `spam` when that was the verdict. */
export function signalKinds(screen: TextScreen, verdict: 'held' | 'spam' | null): SignalKind[] {
  return [...screen.flags, ...(verdict === 'spam' ? (['spam'] as const) : [])];
}

/** Stores a sent text's safety signals, in the send's transaction (its fingerprint is written with the message). */
export async function recordSignals(
  trx: Q,
  sent: { siteId: string; userId: number; profileId: number; messageId: number; conversationId: number; now: number },
  kinds: SignalKind[],
  print: string | null,
) {
  if (kinds.length === 0) return;
  await trx.insertInto('safety_signals').values(kinds.map((kind) => ({
    site_id: sent.siteId, kind, user_id: sent.userId, profile_id: sent.profileId, message_id: sent.messageId, conversation_id: sent.conversationId,
    fingerprint: kind === 'spam' ? print : null, score: null, status: 'open' as const, created_at: sent.now,
  }))).execute();
}

/** The recipient's copy of a message: with its flags (the sender's copy never has them). */
export function forRecipient(message: ChatMessage, flags: TextFlag[]): ChatMessage {
  return flags.length ? { ...message, flags } : message;
}

/** Text flags of the partner's messages in a page of history, for the member reading it. */
export async function flagsOfReceived(db: Q, messages: ChatMessage[], ownProfileId: number): Promise<ChatMessage[]> {
  const received = messages.filter((m) => m.sender_profile_id !== ownProfileId && m.kind === 'text').map((m) => m.id);
  if (received.length === 0) return messages;
  const rows = await db.selectFrom('safety_signals').select(['message_id', 'kind'])
    .where('message_id', 'in', received).where('kind', 'in', [...TEXT_FLAGS]).execute();
  if (rows.length === 0) return messages;
  const byMessage = new Map<number, TextFlag[]>();
  for (const row of rows) byMessage.set(row.message_id as number, [...(byMessage.get(row.message_id as number) ?? []), row.kind as TextFlag]);
  return messages.map((m) => forRecipient(m, TEXT_FLAGS.filter((f) => byMessage.get(m.id)?.includes(f))));
}

/** Retention (job runner): signals after 90 days, fingerprints after a day. */
export async function pruneSafety(db: Q, now: number) {
  await db.deleteFrom('safety_signals').where('created_at', '<', now - SIGNAL_RETENTION_MS).execute();
  await db.deleteFrom('message_fingerprints').where('created_at', '<', now - 24 * SPAM_WINDOW_MS).execute();
}
