import type { MemberShellData } from '../../core/members/shell-data';
import { creditsBadgeTone, DISMISS_KEYS, formatBadge, TIME_BONUS_PERCENTAGE } from '../../shared/constants';
import { languagesForCountry } from '../../shared/geo/regions';
import { getT, pluralForms } from '../../shared/i18n';
import { LOCALE_NAMES, LOCALE_TAGS, LOCALES, type Locale } from '../../shared/locales';
import type { TimeBonus, TimeBonusResponse } from '../../shared/payments.contract';
import type { Site } from '../../shared/site.schema';
import { fictionalTexts } from '../../shared/site-texts';
import type { SessionUser } from '../../shared/user.contract';
import type { TFunction } from 'i18next';
import { escapeAttribute, type Html, html, raw } from './html';

/**
 * The parts of the Default layout (src/layouts/Default.astro) that show who is signed in: the top
 * navigation, the member's alerts (with the time bonus's banner) and the members' shell data. Plain
 * functions, so Astro's components (TopNav.astro, MemberAlerts.astro render through them) and the kept
 * layout frames of member pages (src/server/pages/member-frame.ts: these are its holes) write them the
 * same way. Their styles stay in those components (global, under the parts' own classes).
 */

// Inline SVG icons (Feather-style strokes), so no icon font or emoji font is needed.
const ICON_PATHS = {
  globe: '<circle cx="12" cy="12" r="10"/><path d="M2 12h20M12 2a15.3 15.3 0 0 1 4 10 15.3 15.3 0 0 1-4 10 15.3 15.3 0 0 1-4-10 15.3 15.3 0 0 1 4-10z"/>',
  search: '<circle cx="11" cy="11" r="8"/><path d="m21 21-4.35-4.35"/>',
  chat: '<path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/>',
  heart: '<path d="M20.84 4.61a5.5 5.5 0 0 0-7.78 0L12 5.67l-1.06-1.06a5.5 5.5 0 0 0-7.78 7.78L12 21.23l8.84-8.84a5.5 5.5 0 0 0 0-7.78z"/>',
  coins: '<circle cx="8" cy="8" r="6"/><path d="M18.09 10.37A6 6 0 1 1 10.34 18M7 6h1v4M16.71 13.88l.7.71-2.82 2.82"/>',
  back: '<path d="M19 12H5M12 19l-7-7 7-7"/>',
} as const;

const icon = (name: keyof typeof ICON_PATHS, size = 20) =>
  raw(`<svg class="icon" width="${size}" height="${size}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${ICON_PATHS[name]}</svg>`);

/** A boolean attribute: ` hidden` when set. */
const flag = (name: string, on: boolean) => raw(on ? ` ${name}` : '');
/** An attribute's value as Astro writes `attr={value}`. */
const attr = (value: string | number) => raw(escapeAttribute(String(value)));

// The markup below is spaced as Astro's compiler spaced these components' templates, so the pages look as they did.

/** The language menu: the visitor's country decides which languages come first (BE: nl, fr, de; CH: de, it, fr, en). */
function languageDropdown(locale: Locale, country: string | null | undefined, hrefs: Partial<Record<Locale, string>>): Html {
  const t = getT(locale);
  const preferred = languagesForCountry(country);
  const ordered = [...preferred, ...LOCALES.filter((l) => !preferred.includes(l))];
  // The name starts with the visible "EN", so speech users can say what they see.
  return html`<details class="dropdown lang-dropdown" data-dropdown>  <summary class="btn btn-ghost" aria-label="${attr(`${locale.toUpperCase()} – ${t('nav.choose_language')}`)}"> ${icon('globe')} <span class="lang-current">${locale.toUpperCase()}</span> </summary> <ul class="dropdown-menu" role="list" aria-label="${attr(t('nav.language'))}"> ${ordered.map((l) =>
    html`<li> <a href="${attr(hrefs[l] ?? '?')}" data-lang="${attr(l)}" hreflang="${attr(l)}" lang="${attr(l)}"${raw(l === locale ? ' aria-current="true"' : '')}> ${LOCALE_NAMES[l]} </a> </li>`)} </ul> </details>`;
}

/**
 * The language menu of a page without per-locale URLs (every member page): the same for every view in one
 * language and country, so made once for each (at most 11 languages × the countries that order them).
 */
const sameUrlMenus = new Map<string, Html>();
function sameUrlLanguages(locale: Locale, country: string | null | undefined): Html {
  const key = `${locale} ${country ?? ''}`;
  let menu = sameUrlMenus.get(key);
  if (!menu) {
    menu = languageDropdown(locale, country, {});
    if (sameUrlMenus.size >= 4096) sameUrlMenus.clear();
    sameUrlMenus.set(key, menu);
  }
  return menu;
}

/** A member's links: search, chats, likes, credits or Get Premium, languages and their account's menu. */
function memberActions(user: SessionUser, t: TFunction, languages: Html): Html {
  const unread = formatBadge(user.unread_messages);
  const likes = formatBadge(user.new_likes);
  const tone = creditsBadgeTone(user.credits);
  // `badge` null: a link that never has one (spaced as such).
  const link = (nav: string, name: Parameters<typeof icon>[0], label: string, badge: Html | null, hidden = false) =>
    html`<a class="nav-link" href="/${nav}" data-nav="${nav}"${flag('hidden', hidden)}> ${icon(name)}<span class="nav-label">${label}</span>${badge === null ? ' ' : html` ${badge} `}</a>`;
  const badge = (kind: string, label: string, text: string | number, tone = '') =>
    html`<span class="${attr(`badge${tone}`)}" data-badge="${kind}" aria-label="${attr(label)}">${text}</span>`;
  const nav = [
    link('members', 'search', t('nav.search_members'), null),
    link('chats', 'chat', t('nav.messages'), unread ? badge('unread', t('nav.unread_badge', { count: user.unread_messages }), unread) : raw('')),
    link('likes', 'heart', t('nav.likes'), likes ? badge('likes', t('nav.new_likes_badge', { count: user.new_likes }), likes) : raw('')),
    // Both are on the page: a first purchase swaps them live (src/core/members/shell.ts).
    link('credits', 'coins', t('nav.credits'), tone === 'none' ? raw('')
      : badge('credits', tone === 'danger' ? t('nav.no_credits') : t('nav.low_credits', { count: user.credits }), user.credits, ` badge-${tone}`), !user.paid_user),
    // Phones show the short label (three lines of "Przejdź na Premium" in an 88 px pill before); the link's name stays the whole one.
    html`<a class="btn btn-primary btn-premium" href="/premium" data-nav="premium" aria-label="${attr(t('nav.get_premium'))}"${flag('hidden', user.paid_user)}><span class="premium-long">${t('nav.get_premium')}</span><span class="premium-short">${t('nav.premium_short')}</span></a>`,
    languages,
    html`<details class="dropdown account-dropdown" data-dropdown> <summary class="btn btn-ghost" aria-label="${attr(t('nav.account'))}"> <span class="avatar" aria-hidden="true">${user.profile.name.slice(0, 1).toUpperCase()}</span> </summary> <ul class="dropdown-menu dropdown-end" role="list"> <li><a href="/profile">${t('nav.my_profile')}</a></li> <li><a href="/notifications">${t('notifications.title')}</a></li> <li><a href="/settings">${t('nav.settings')}</a></li> <li><a href="/api/logout.php" data-logout>${t('nav.logout')}</a></li> </ul> </details>`,
  ];
  return raw(`${nav.join(' ')} `);
}

export interface TopNavInputs {
  site: Site;
  locale: Locale;
  user: SessionUser | null;
  country?: string | null;
  /** Per-locale URL of this page where one exists (static pages); otherwise the same URL. */
  langHrefs?: Partial<Record<Locale, string>>;
  /** The signup wizard: its first step offers the login itself, and after it the new member is logged in. */
  signup?: boolean;
}

/** The top navigation (src/components/TopNav.astro holds its styles). */
export function topNavHtml({ site, locale, user, country, langHrefs, signup = false }: TopNavInputs): string {
  const t = getT(locale);
  const languages = langHrefs ? languageDropdown(locale, country, langHrefs) : sameUrlLanguages(locale, country);
  const actions = user ? memberActions(user, t, languages)
    : html`${languages} ${!signup && html`<a class="btn btn-primary" href="/login" data-nav="login">${t('nav.login')}</a>`}`;
  return html`<header class="${user ? 'topnav logged-in' : 'topnav'}"> <nav class="container topnav-inner" aria-label="${attr(t('nav.main_menu'))}"> <button type="button" class="btn btn-ghost back-btn" data-back hidden aria-label="${attr(t('nav.back'))}"> ${icon('back')}<span class="nav-label">${t('nav.back')}</span> </button> <a class="brand" href="/" aria-label="${attr(t('nav.home', { site: site.name }))}"> <span class="brand-mark">${icon('heart', 18)}</span> <span class="brand-name">${site.name}</span> </a> <div class="topnav-actions">  ${actions} </div> </nav> </header>`.html;
}

/** The time bonus's banner (SPEC §4): its countdown is set before first paint from the deadline, in the device's clock. */
function timeBonusBanner(bonus: TimeBonus, locale: Locale): Html {
  const t = getT(locale);
  const short = new Intl.NumberFormat(LOCALE_TAGS[locale], { style: 'percent', signDisplay: 'always' }).format(-TIME_BONUS_PERCENTAGE / 100);
  return html`<div class="time-bonus-banner container" role="region" aria-label="${attr(t('shop.tb_title'))}" data-time-bonus data-deadline="${attr(bonus.deadline)}"> <span class="tb-text">${t('shop.tb_banner', { percent: TIME_BONUS_PERCENTAGE })}</span> <span class="tb-short" aria-hidden="true">${short} ·</span> <span class="tb-countdown" role="timer" aria-label="${attr(t('shop.tb_time_left'))}" data-tb-countdown>00:00:00</span> <a class="btn btn-secondary tb-cta" href="/credits">${t('shop.tb_cta')}</a> </div> ${raw(TIME_BONUS_SCRIPT)} `;
}

const TIME_BONUS_SCRIPT = `<script>
  (function () {
    var banner = document.currentScript.previousElementSibling;
    var left = Math.max(0, Math.floor((Number(banner.dataset.deadline) - Date.now()) / 1000));
    banner.querySelector('[data-tb-countdown]').textContent = [Math.floor(left / 3600), Math.floor((left % 3600) / 60), left % 60]
      .map(function (n) { return String(n).padStart(2, '0'); }).join(':');
  })();
</script>`;

const DISMISSED_SCRIPT = `<script>
  // Alerts the member dismissed before go before first paint (removed later, they would move the page).
  (function () {
    document.querySelectorAll('[data-dismiss-key]').forEach(function (alert) {
      try { if (localStorage.getItem(alert.dataset.dismissKey)) alert.remove(); } catch (e) { /* storage disabled */ }
    });
  })();
</script>`;

export interface MemberAlertsInputs {
  user: SessionUser;
  /** The layout's route (src/layouts/Default.astro's `route`). */
  route: string;
  locale: Locale;
  apiSignupComplete: boolean;
  timeBonus: TimeBonus | null;
  /** The web-push public key, when push is configured. */
  pushKey: string | null;
}

/**
 * The member's warning banners (SPEC §4): activation reminder, time bonus, profile photo, push offer,
 * disabled notifications; src/components/MemberAlerts.astro holds their styles. Always ends with the
 * script that drops the alerts the member dismissed before.
 */
export function memberAlertsHtml({ user, route, locale, apiSignupComplete, timeBonus, pushKey }: MemberAlertsInputs): string {
  const t = getT(locale);
  const notOn = (routes: string[]) => !routes.includes(route);
  const unconfirmed = user.status === 'not_confirmed' && user.profile.status === 'disabled' && notOn(['signup', 'settings', 'notifications']);
  const noPhoto = !user.profile.main_image && notOn(['profile', 'signup', 'activate-done', 'premium', 'notifications', 'directdebit', 'settings']);
  const disabled = user.notifications_disabled.length > 0 && notOn(['settings', 'notifications']);
  // Shown by the client only where push is available and not yet on (src/core/shell/boot.ts): a bar fixed
  // to the bottom of the window, so it never pushes the page down.
  const pushOffer = pushKey !== null && notOn(['signup', 'notifications', 'activate-done', 'directdebit', 'premium']);
  const dismiss = html`<button type="button" class="btn btn-ghost" data-dismiss aria-label="${attr(t('alert.dismiss'))}">×</button>`;
  return html`${unconfirmed && html`<div class="alert container" role="status" data-activation-alert><span class="alert-line"><span class="alert-text">${t('activation.reminder')}</span> <button type="button" class="link-button" data-resend-activation data-done="${attr(t('activation.resent'))}">${t('activation.resend')}</button></span></div>`}${
    unconfirmed && apiSignupComplete && html`<dialog class="modal modal-sm" id="activation-modal" aria-labelledby="activation-modal-title"><div class="modal-body"><h2 id="activation-modal-title">${t('activation.modal_title')}</h2><p>${t('activation.reminder')}</p><div class="modal-actions"><button type="button" class="btn btn-ghost" data-close-dialog>${t('common.close')}</button><button type="button" class="btn btn-primary" data-resend-activation data-done="${attr(t('activation.resent'))}">${t('activation.resend')}</button></div></div></dialog>`}${
    timeBonus?.isVisible && route !== 'signup' && timeBonusBanner(timeBonus, locale)}${
    noPhoto && html`<div class="alert container dismissible" data-dismiss-key="${attr(DISMISS_KEYS.enrich)}"><span class="alert-line"><span class="alert-text">${t('alert.photo')}</span> <a href="/profile">${t('alert.photo_cta')}</a></span>${dismiss}</div>`}${
    pushOffer && html`<div class="alert dismissible push-offer" data-dismiss-key="${attr(DISMISS_KEYS.push)}" data-push-alert data-push-key="${attr(pushKey)}" hidden><span class="alert-line"><span class="alert-text">${t('alert.push')}</span> <button type="button" class="link-button" data-push-enable>${t('alert.push_cta')}</button></span>${dismiss}</div>`}${
    disabled && html`<div class="alert container dismissible" data-dismiss-key="${attr(DISMISS_KEYS.disabledNotifications)}"><span class="alert-line"><span class="alert-text">${t('alert.disabled_notifications')}</span> <a href="/settings">${t('alert.disabled_notifications_cta')}</a></span>${dismiss}</div>`}${
    raw(DISMISSED_SCRIPT)}`.html;
}

export interface MemberShellInputs {
  site: Site;
  locale: Locale;
  user: SessionUser;
  /** The running time bonus as the server answered for this page (null: none, or not looked up). */
  timeBonus: TimeBonusResponse | null;
}

/** The members' shell data (src/core/members/boot.ts): JSON in a script element, never script. */
export function memberShellHtml({ site, locale, user, timeBonus }: MemberShellInputs): string {
  const t = getT(locale);
  const fictional = fictionalTexts(site, locale);
  const data: MemberShellData = {
    user, locale,
    // pluralForms and plain keys are looked up once per language already (src/shared/i18n).
    labels: {
      unread: pluralForms(locale, 'nav.unread_badge'), likes: pluralForms(locale, 'nav.new_likes_badge'),
      lowCredits: pluralForms(locale, 'nav.low_credits'), noCredits: t('nav.no_credits'),
    },
    timeBonus,
    fictional: { icon: fictional.icon, label: fictional.singular },
  };
  return `<script type="application/json" id="member-shell-data">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`;
}

/** Everything the member parts of a member page's layout read. */
export interface MemberLayoutInputs extends MemberShellInputs {
  country: string | null;
  route: string;
  apiSignupComplete: boolean;
  pushKey: string | null;
}

/** The member parts of the layout of a member page, as Default.astro writes them (the holes of its frame). */
export function memberLayoutParts(inputs: MemberLayoutInputs): { topNav: string; alerts: string; shell: string } {
  return {
    topNav: topNavHtml(inputs),
    alerts: memberAlertsHtml({ ...inputs, timeBonus: inputs.timeBonus?.time_bonus ?? null }),
    shell: memberShellHtml(inputs),
  };
}
