/** Business constants from SPEC §9, kept in one place. */
export const NICHES = ['generic', 'she', 'bdsm', 'bbw', 'gilf', 'milf', 'gay'] as const;
export type NicheName = (typeof NICHES)[number];
/** Niche numbers 1..7 map to NICHES[n - 1]. */
export function nicheName(niche: number): NicheName {
  return NICHES[niche - 1] ?? 'generic';
}

export const TIME_BONUS_SECONDS = 14_400;
export const TIME_BONUS_PERCENTAGE = 25;
/** Whether a member is in the time bonus's window (SPEC §4): not paid, signed up less than TIME_BONUS_SECONDS ago. */
export function inTimeBonusWindow(user: { paid_user: boolean; signup_date: string }, now: number): boolean {
  return !user.paid_user && now - Date.parse(user.signup_date) < TIME_BONUS_SECONDS * 1000;
}
export const TIME_BONUS_POPUP_DELAY_MS = 40_000;
export const REFRESH_INTERVAL_MS = 60_000;
export const REFRESH_INTERVAL_PUSH_MS = 300_000;
export const REFRESH_FIRST_START_MS = 5_000;
export const CHUNK_RELOAD_GUARD_MS = 60_000;
export const HTTP_RETRIES = 5;
export const AUTH_COOKIE_MAX_AGE_S = 30 * 24 * 60 * 60;
export const FREE_PHOTOS = 3;
export const PREMIUM_PHOTOS = 25;
export const FREE_LIKES_PER_DAY = 4;
export const FREE_CONVERSATIONS = 2;
/** Swipe-game cards a day (the spec names an allowance, not its size). */
export const SWIPES_PER_DAY_FREE = 50;
export const SWIPES_PER_DAY_PREMIUM = 200;
export const REACTIVATION_DAYS = 14;
export const BADGE_CAP = 99;
export const LOW_CREDITS_THRESHOLD = 10;
export const PREMIUM_CHANCE_PERCENT = 46;
export const MIN_AGE = 18;
export const DESIGN_VERSION = 1;

/** localStorage keys that hold a dismissal timestamp. */
export const DISMISS_KEYS = {
  enrich: 'hide-enrich-alert',
  push: 'hide-push-notification-alert',
  disabledNotifications: 'hide-disabled-notifications-alert',
  timeBonusModal: 'hide-time-bonus-modal',
  entryWarning: 'hide-entry-warning',
} as const;

/** Routes that count as the members area (SPEC §2). */
export const MEMBERS_AREA_ROUTES = ['members', 'members-id', 'chats', 'likes', 'likes-m-id', 'premium'] as const;
/** Routes where the installed app shows a Back button. */
export const BACK_BUTTON_ROUTES = ['members-id', 'likes-type', 'likes-m-id', 'credits', 'credits-id-paymentmethod'] as const;
/** Routes where the site-entry warning is never shown. */
export const ENTRY_WARNING_HIDDEN_ROUTES = ['complete-signup', 'reset-password', 'reset-password-do', 'unsubscribe', 'mail-change-do', 'activate-error'] as const;
/** Countries where the Chat and Lander layouts show the entry warning. */
export const ENTRY_WARNING_LAYOUT_COUNTRIES = ['NL', 'DE'] as const;

/** Static pages rendered from content/pages/<locale>/<page>.md. */
export const STATIC_PAGES = ['terms', 'privacy', 'cookies', 'ban', 'return-policy', 'faq', 'service', 'complaints', 'pricing'] as const;
export type StaticPage = (typeof STATIC_PAGES)[number];
/** Route names of the static pages, as the spec names them. */
export const STATIC_PAGE_ROUTE_NAMES: Record<StaticPage, string> = {
  terms: 'pages-terms', privacy: 'pages-privacy', cookies: 'pages-cookies', ban: 'pages-ban',
  'return-policy': 'pages-return-policy', faq: 'pages-faq', service: 'pages-service',
  complaints: 'complaints', pricing: 'pricing',
};

/** The footer's nine links, in order, as [catalog key, path]. */
export const FOOTER_LINKS = [
  ['footer.terms', '/terms'],
  ['footer.privacy', '/privacy'],
  ['footer.cookies', '/cookies'],
  ['footer.ban', '/ban'],
  ['footer.pricing', '/pricing'],
  ['footer.complaints', '/complaints'],
  ['footer.return_policy', '/return-policy'],
  ['footer.faq', '/faq'],
  ['footer.service', '/service'],
] as const;

/** Caps a badge count at 99+. Returns null for 0 so no badge shows. */
export function formatBadge(count: number): string | null {
  if (!Number.isFinite(count) || count <= 0) return null;
  return count > BADGE_CAP ? `${BADGE_CAP}+` : String(Math.floor(count));
}

/** Credits badge colour: none above 10, warning at 1..10, danger at 0. */
export function creditsBadgeTone(credits: number): 'none' | 'warning' | 'danger' {
  if (credits <= 0) return 'danger';
  return credits <= LOW_CREDITS_THRESHOLD ? 'warning' : 'none';
}

/** "(3) Title" when there is something unread, otherwise the bare title. */
export function titleWithCount(title: string, count: number): string {
  const base = title.replace(/^\(\d+\+?\)\s/, '');
  return count > 0 ? `(${count}) ${base}` : base;
}

/** Support phone without dashes and whitespace, as SPEC §9 asks. */
export function cleanPhone(phone: string): string {
  return phone.replace(/[\s-]+/g, '');
}

/**
 * Terms version: the `version_date` of the locale's terms page (content/pages/<locale>/terms.md),
 * or the company's added date if later.
 */
export function termsVersionDate(versionDate: string, companyAdded: string | null | undefined): Date {
  const base = new Date(versionDate);
  if (Number.isNaN(base.getTime())) throw new Error(`terms version_date is not a date: ${versionDate}`);
  if (!companyAdded) return base;
  const added = new Date(companyAdded);
  return Number.isNaN(added.getTime()) || added <= base ? base : added;
}

/**
 * Abuse limits, enforced with rate-limiter-flexible on the same store as the login limits
 * (database or Redis): at most `points` in `seconds` per key; the answer is a 429 with Retry-After.
 * RATE_LIMIT_FACTOR multiplies every `points` (tests and e2e runs raise them; see README).
 */
export const ABUSE_LIMITS = {
  /** Accounts created from one IP address a day. */
  signup_ip: { points: 10, seconds: 86_400 },
  /** Reset and activation mails to one address a day (reset links alone: RESETS_PER_DAY). */
  mail_address: { points: 6, seconds: 86_400 },
  /** Reset and activation mails asked for from one IP address an hour. */
  mail_ip: { points: 20, seconds: 3_600 },
  /** Reports one member sends a day (each profile once). */
  report_day: { points: 10, seconds: 86_400 },
  /** Chat messages (texts, gifts, images) one member sends a minute. */
  message_minute: { points: 20, seconds: 60 },
  /** Photos and chat images one member uploads an hour. */
  upload_hour: { points: 30, seconds: 3_600 },
  /** Lander views counted from one IP address an hour (each visit counts a lander once anyway). */
  lander_view_ip: { points: 60, seconds: 3_600 },
} as const;
export type AbuseLimitName = keyof typeof ABUSE_LIMITS;
/** SPEC §9: the top progress bar on navigation. */
export const PROGRESS_BAR = { durationMs: 5000, throttleMs: 200, hideDelayMs: 500 } as const;
