import type { TimeBonusResponse } from '../../shared/payments.contract';
import type { SessionUser } from '../../shared/user.contract';
import type { PluralForms } from './shell';

/** What the Default layout hands the members' shell (a JSON script tag, see Default.astro). */
export interface MemberShellData {
  user: SessionUser;
  locale: string;
  /** Counted labels as plural forms by Intl.PluralRules category (see pluralForms in src/shared/i18n). */
  labels: { unread: PluralForms; likes: PluralForms; lowCredits: PluralForms; noCredits: string };
  /** The running time bonus as the server answered while rendering (null: none, or not looked up). */
  timeBonus: TimeBonusResponse | null;
  fictional: { icon: string; label: string };
}
