import * as v from 'valibot';

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
  /** Explicit chat images arrive unblurred (docs/safety-images.md). */
  show_explicit_images: boolean;
  unread_messages: number;
  new_likes: number;
  profile: {
    id: number;
    name: string;
    status: 'active' | 'disabled' | 'deleted';
    /** match_path: the address of the picture the match modal shows (the main photo's square thumbnail; SPEC §3 data model). */
    main_image: { filename: string; thumb_filename: string; status: string; match_path: string } | null;
  };
}

/** POST /api/user.php?push=1 — this browser's web-push subscription (PushSubscription.toJSON()). */
export const PushSubscribeSchema = v.object({
  subscription: v.object({
    endpoint: v.pipe(v.string(), v.maxLength(1024), v.url(), v.regex(/^https?:\/\//)),
    keys: v.object({
      p256dh: v.pipe(v.string(), v.minLength(20), v.maxLength(256), v.regex(/^[A-Za-z0-9_=-]+$/)),
      auth: v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9_=-]+$/)),
    }),
  }),
});
/** DELETE /api/user.php?push=1 — forget one subscription of the member. */
export const PushUnsubscribeSchema = v.object({ endpoint: v.pipe(v.string(), v.maxLength(1024)) });
/** Push services of the browsers; in production the server only posts to these hosts. */
export const PUSH_SERVICE_HOSTS = [/\.googleapis\.com$/, /\.mozilla\.com$/, /\.windows\.com$/, /\.push\.apple\.com$/];
/** The query that turns user.php into the push-subscription call. */
export const PUSH_PATH_QUERY = 'push=1';
