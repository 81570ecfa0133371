import type { TimeBonusResponse } from '../../shared/payments.contract';
import type { SessionUser } from '../../shared/user.contract';

/** What the Default layout hands the members' shell (a JSON script tag, see Default.astro). */
export interface MemberShellData {
  user: SessionUser;
  locale: string;
  labels: { unread: string; likes: string; lowCredits: string; noCredits: string };
  /** The running time bonus as the server answered while rendering (null: none, or not looked up). */
  timeBonus: TimeBonusResponse | null;
  fictional: { icon: string; label: string };
}
