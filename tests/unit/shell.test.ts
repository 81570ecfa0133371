import { describe, expect, it, vi } from 'vitest';
import { fillCount, renderAppBadge, renderBadge, renderCreditsNav, renderTitle } from '../../src/core/members/shell';

/** Just enough of a DOM element for the badge code. */
function fakeLink() {
  const children: FakeEl[] = [];
  type FakeEl = { className: string; dataset: Record<string, string>; textContent: string; attrs: Record<string, string>; setAttribute(k: string, v: string): void; remove(): void };
  const link = {
    children,
    ownerDocument: {
      createElement: (): FakeEl => {
        const el: FakeEl = {
          className: '', dataset: {}, textContent: '', attrs: {},
          setAttribute(k, v) { el.attrs[k] = v; },
          remove() { children.splice(children.indexOf(el), 1); },
        };
        return el;
      },
    },
    append: (el: FakeEl) => children.push(el),
    querySelector: (sel: string) => children.find((c) => sel.includes(`"${c.dataset.badge}"`)) ?? null,
  };
  return link;
}

describe('members shell', () => {
  it('creates, updates (99+ cap) and removes the nav badge', () => {
    const link = fakeLink();
    const label = { one: '{{count}} unread message', other: '{{count}} unread messages' };
    renderBadge(link as never, 'unread', 3, label, 'en');
    expect(link.children.map((c) => [c.className, c.textContent, c.attrs['aria-label']])).toEqual([['badge', '3', '3 unread messages']]);
    renderBadge(link as never, 'unread', 1, label, 'en');
    expect(link.children.map((c) => c.attrs['aria-label'])).toEqual(['1 unread message']);
    renderBadge(link as never, 'unread', 120, label, 'en');
    expect(link.children.map((c) => c.textContent)).toEqual(['99+']);
    renderBadge(link as never, 'unread', 0, label, 'en');
    expect(link.children).toEqual([]);
  });

  it('puts the count in the title and on the app badge', () => {
    const doc = { title: 'Messages · Kindred' };
    renderTitle(doc, 4);
    expect(doc.title).toBe('(4) Messages · Kindred');
    renderTitle(doc, 0);
    expect(doc.title).toBe('Messages · Kindred');
    const nav = { setAppBadge: vi.fn(async () => undefined), clearAppBadge: vi.fn(async () => undefined) };
    renderAppBadge(nav, 5);
    renderAppBadge(nav, 0);
    expect(nav.setAppBadge).toHaveBeenCalledWith(5);
    expect(nav.clearAppBadge).toHaveBeenCalledOnce();
    expect(() => renderAppBadge({}, 2)).not.toThrow();
    expect(fillCount({ other: '{{ count }} new' }, 2, 'en')).toBe('2 new');
    // Polish: 1 / 2–4 / 5+ take different forms ("1 nowe polubienie", "3 nowe polubienia", "5 nowych polubień").
    const pl = { one: '{{count}} A', few: '{{count}} B', many: '{{count}} C', other: '{{count}} D' };
    expect([1, 3, 5, 22, 25].map((n) => fillCount(pl, n, 'pl'))).toEqual(['1 A', '3 B', '5 C', '22 B', '25 C']);
  });

  it('shows the credits link with its badge for paid members and Get Premium for free ones, live', () => {
    const link = Object.assign(fakeLink(), { hidden: true });
    const premium = { hidden: false };
    const labels = { low: { one: 'Only {{count}} credit left', other: 'Only {{count}} credits left' }, none: 'You have no credits left' };
    const badge = () => link.children.map((c) => [c.className, c.textContent, c.attrs['aria-label']]);
    renderCreditsNav(link as never, premium, { credits: 0, paid_user: false }, labels, 'en');
    expect([link.hidden, premium.hidden]).toEqual([true, false]);
    // A first purchase: credits instead of Get Premium, no badge above 10 credits.
    renderCreditsNav(link as never, premium, { credits: 270, paid_user: true }, labels, 'en');
    expect([link.hidden, premium.hidden]).toEqual([false, true]);
    expect(badge()).toEqual([]);
    renderCreditsNav(link as never, premium, { credits: 10, paid_user: true }, labels, 'en');
    expect(badge()).toEqual([['badge badge-warning', '10', 'Only 10 credits left']]);
    renderCreditsNav(link as never, premium, { credits: 0, paid_user: true }, labels, 'en');
    expect(badge()).toEqual([['badge badge-danger', '0', 'You have no credits left']]);
    renderCreditsNav(link as never, premium, { credits: 11, paid_user: true }, labels, 'en');
    expect(badge()).toEqual([]);
  });
});
