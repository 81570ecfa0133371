import type { Site } from '../../shared/site.schema';
import type { User } from '../db/schema';

/**
 * What the member's next text message costs in credits: the one rule for sends (chat.service.ts
 * `sendMessage`) and the composer's hint. `freeTexts`: the member's free texts sent so far
 * (read only where the site gives any to a non-paying member).
 */
export function textMessageCredits(site: Site, user: Pick<User, 'paid_user'>, facts: { credits: number; freeTexts: number }): number {
  if (!user.paid_user && site.free_messages > 0 && facts.freeTexts < site.free_messages) return 0;
  // Premium members keep chatting at zero credits where the site allows it (SPEC §6; payments.premium_chat_at_zero).
  if (user.paid_user && site.payments.premium_chat_at_zero && facts.credits < site.message_credits) return 0;
  return site.message_credits;
}
