import { formatBadge, titleWithCount } from '../../shared/constants';

/** Replaces {{count}} in a translated label. */
export const fillCount = (template: string, count: number) => template.replace(/\{\{\s*count\s*\}\}/g, String(count));

/**
 * Shows `count` in the nav link's badge (99+ cap), creating the badge when it is missing and
 * removing it at 0, like the server-rendered TopNav does.
 */
export function renderBadge(link: Element | null, kind: string, count: number, labelTemplate: string) {
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
  badge.setAttribute('aria-label', fillCount(labelTemplate, count));
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
