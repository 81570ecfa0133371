import type { TimeBonusResponse } from '../../shared/payments.contract';
import type { SessionUser } from '../../shared/user.contract';

/** What the Default layout hands the members' shell (a JSON script tag, see Default.astro). */
export interface MemberShellData {
  user: SessionUser;
  locale: string;
  /** Messages the like and match modals need. */
  messages: Record<string, string>;
  labels: { unread: string; likes: string; lowCredits: string; noCredits: string };
  /** The running time bonus as the server answered while rendering (null: none, or not looked up). */
  timeBonus: TimeBonusResponse | null;
  fictional: { icon: string; label: string };
}

/** Catalog prefixes of the like and match modals and the time bonus. */
export const MEMBER_SHELL_MESSAGE_PREFIXES = ['match.', 'like.new_like', 'like.modal_', 'common.close', 'shop.tb_'];
