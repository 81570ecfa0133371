import { creditsBadgeTone, formatBadge, titleWithCount } from '../../shared/constants';

/** A counted label's plural forms, keyed by Intl.PluralRules category ("one", "few", "other"…). */
export type PluralForms = Record<string, string>;

/** The label's plural form for the count in the locale, with {{count}} filled in. */
export const fillCount = (forms: PluralForms, count: number, locale: string) =>
  (forms[new Intl.PluralRules(locale).select(count)] ?? forms.other ?? '').replace(/\{\{\s*count\s*\}\}/g, String(count));

/**
 * Shows `count` in the nav link's badge (99+ cap), creating the badge when it is missing and
 * removing it at 0, like the server-rendered TopNav does.
 */
export function renderBadge(link: Element | null, kind: string, count: number, label: PluralForms, locale: string) {
  if (!link) return;
  let badge = link.querySelector<HTMLElement>(`[data-badge="${kind}"]`);
  const text = formatBadge(count);
  if (!text) {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = link.ownerDocument.createElement('span');
    badge.className = 'badge';
    badge.dataset.badge = kind;
    link.append(badge);
  }
  badge.textContent = text;
  badge.setAttribute('aria-label', fillCount(label, count, locale));
}

/** "(N) Title" for unread messages plus new likes (SPEC §2). */
export function renderTitle(doc: Pick<Document, 'title'>, count: number) {
  const next = titleWithCount(doc.title, count);
  if (doc.title !== next) doc.title = next;
}

/** The installed app's badge: unread messages plus new likes (SPEC §2), where the browser has one. */
export function renderAppBadge(nav: Partial<Pick<Navigator, 'setAppBadge' | 'clearAppBadge'>>, count: number) {
  if (count > 0) nav.setAppBadge?.(count).catch(() => undefined);
  else nav.clearAppBadge?.().catch(() => undefined);
}

type NavEl = Pick<HTMLElement, 'hidden' | 'querySelector' | 'append' | 'ownerDocument'>;

/**
 * The credits part of the nav (SPEC §2): paid members see the credits link — with a badge at 10
 * or fewer credits, warning colour above 0, danger at 0 — and free members Get Premium. A first
 * purchase swaps them at once.
 */
export function renderCreditsNav(
  credits: NavEl | null, premium: Pick<HTMLElement, 'hidden'> | null, user: { credits: number; paid_user: boolean },
  labels: { low: PluralForms; none: string }, locale: string,
) {
  if (premium) premium.hidden = user.paid_user;
  if (!credits) return;
  credits.hidden = !user.paid_user;
  const tone = creditsBadgeTone(user.credits);
  let badge = credits.querySelector<HTMLElement>('[data-badge="credits"]');
  if (tone === 'none') {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = credits.ownerDocument.createElement('span');
    badge.dataset.badge = 'credits';
    credits.append(badge);
  }
  badge.className = `badge badge-${tone}`;
  badge.textContent = String(user.credits);
  badge.setAttribute('aria-label', tone === 'danger' ? labels.none : fillCount(labels.low, user.credits, locale));
}
