/** GET /api/user.php — the logged-in member as the client sees it (SPEC §3 User). */
export const USER_PATH = '/api/user.php';
/** Header marking requests the client makes itself (SPEC §7). */
export const REQUEST_TYPE_HEADER = 'X-Requested-With';
export const REQUEST_TYPE_VALUE = 'kindred-client';

export interface SessionUser {
  id: number;
  email: string;
  role: 'member' | 'staff';
  status: 'confirmed' | 'not_confirmed';
  credits: number;
  paid_user: boolean;
  language: string;
  fictional_icon: string;
  signup_date: string;
  notifications_disabled: string[];
  email_prefs: Record<string, boolean>;
  push_prefs: Record<string, boolean>;
  invisible: boolean;
  unread_messages: number;
  new_likes: number;
  profile: {
    id: number;
    name: string;
    status: 'active' | 'disabled' | 'deleted';
    main_image: { filename: string; thumb_filename: string; status: string } | null;
  };
}
