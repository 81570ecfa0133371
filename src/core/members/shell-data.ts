import type { SessionUser } from '../../shared/user.contract';

/** What the Default layout hands the members' shell (a JSON script tag, see Default.astro). */
export interface MemberShellData {
  user: SessionUser;
  locale: string;
  /** Messages the like and match modals need. */
  messages: Record<string, string>;
  labels: { unread: string; likes: string };
  fictional: { icon: string; label: string };
}

/** Catalog prefixes of the like and match modals. */
export const MEMBER_SHELL_MESSAGE_PREFIXES = ['match.', 'like.new_like', 'like.modal_', 'common.close'];
